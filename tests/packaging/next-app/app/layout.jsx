// The app router's root layout; the icon keeps Chromium from asking for a favicon.ico that is not there.
export const metadata = { title: "agent-memory in Next.js", icons: { icon: "data:," } };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
