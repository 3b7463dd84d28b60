// PostCSS pipeline for Tailwind 4 (the playground's only CSS tooling).
export default {
  plugins: { '@tailwindcss/postcss': {} },
};
