// Root layout of the playground: document shell, global styles, the data providers.
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Providers } from '../components/Providers.tsx';
import './globals.css';

export const metadata: Metadata = {
  title: 'Code Mode Playground',
  description: 'Write Code Mode cells against a live Gateway: exec, wait, the hidden catalog, snapshots and trajectories.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="font-sans antialiased">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
