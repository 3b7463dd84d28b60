// Root layout of the playground: document shell, global styles, the theme set before paint, the data providers.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Providers } from '../components/Providers.tsx';
import { THEME_BOOT_SCRIPT } from '../components/ui/theme.ts';
import './globals.css';

export const metadata: Metadata = {
  title: 'Code Mode Playground',
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
