// Lint rules: the recommended sets of ESLint and typescript-eslint, plus the few
// that catch real bugs in async store code (a forgotten await loses a write).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // docs/api/ is TypeDoc's output (npm run docs), not ours to lint.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'docs/api/**', '.stryker-tmp/**', 'reports/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's test() returns a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // The dashboard's browser script: a classic script, with the browser's globals.
    files: ['src/dashboard/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { document: 'readonly', window: 'readonly', fetch: 'readonly', DOMParser: 'readonly', setInterval: 'readonly' },
    },
  },
);
