// Lint as code review's first pass (npm test runs it): typed rules that catch what review misses
// (a promise nobody awaits, a switch that forgets a case) and import rules that keep layers apart.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Every folder of src/ but the four shared ones (checked by a spec: test/unit/eslint-features.spec.ts).
const FEATURES = [
  'activity',
  'admin',
  'archives',
  'auth',
  'cli',
  'console',
  'health',
  'ingestion',
  'keyframes',
  'limits',
  'live',
  'local',
  'metrics',
  'projections',
  'read-model',
  'recorder-sdk',
  'recordings',
  'rendering',
  'replays',
  'retention',
  'statistics',
];

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**', 'coverage/**', '.data/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Input checks match control characters on purpose (headers, keys, SQL escaping).
      'no-control-regex': 'off',
      'object-shorthand': ['error', 'always'],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@nestjs/swagger/dist/*'], message: 'Deep imports of @nestjs/swagger: describe shapes as zod DTOs.' }] },
      ],
    },
  },
  {
    // Adapters and shared code serve the features; they never reach into one.
    files: ['src/infrastructure/**/*.ts', 'src/common/**/*.ts', 'src/domain/**/*.ts', 'src/config/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: `^(\\.\\./)+(${FEATURES.join('|')})(/|$)`, message: 'infrastructure/, common/, domain/ and config/ must not import feature folders.' },
            { group: ['@nestjs/swagger/dist/*'], message: 'Deep imports of @nestjs/swagger: describe shapes as zod DTOs.' },
          ],
        },
      ],
    },
  },
  {
    // In-page code has its own tsconfig (DOM, no Node); its specs run under Jest with the tests' one.
    files: ['src/rendering/in-page/**/*.spec.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './test/tsconfig.json' } },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
);
