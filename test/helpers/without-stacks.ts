/**
 * Runs `check` with errors and assertions that capture no stack, and puts the limit back afterwards. For property
 * tests of thousands of runs whose code throws on most hostile inputs: capturing a stack for every error (and vitest
 * for every expect) costs more than the code under test, and a failure still names its counterexample and its diff.
 */
export function withoutStacks<T>(check: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return check();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
