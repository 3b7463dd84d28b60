// Root layout of the playground: document shell, global styles, the theme set before paint, the data providers.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Providers } from '../components/Providers.tsx';
import { THEME_BOOT_SCRIPT } from '../components/ui/theme.ts';
import './globals.css';

/**
 * The tab icon, inline: a file icon (app/icon.svg) is fetched again on every URL change, and the page rewrites its URL
 * on each edit and run (`history.replaceState`), so each Run cost a request to the server while the exec was in flight.
 */
const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0a0a0a"/><path d="M11 9 5 16l6 7M21 9l6 7-6 7" fill="none" stroke="#38bdf8" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/><circle cx="16" cy="16" r="2.5" fill="#fbbf24"/></svg>';

export const metadata: Metadata = {
  title: 'Code Mode Playground',
  icons: { icon: `data:image/svg+xml,${encodeURIComponent(ICON_SVG)}` },
  description: 'Write Code Mode cells against a live Gateway: exec, wait, the hidden catalog, snapshots and trajectories.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The boot script sets data-theme before React hydrates, so the attribute differs from the server's HTML on purpose.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="font-sans antialiased">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
