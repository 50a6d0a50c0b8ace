// The one way a test waits for something that happens in its own time: a sync, a delivery, a
// worker's pass. Never a fixed sleep: a check that keeps failing fails with its last error.
/** Polls until `check` stops throwing, or fails with its last error after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, stepMs));
    }
  }
}
