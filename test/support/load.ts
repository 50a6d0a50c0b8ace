// Steady traffic against a gateway during a fault, recording what every request got and how
// long it waited: resilience tests assert on the whole record, not on a sample.
export interface Outcome {
  at: number;
  path: string;
  status: number;
  ms: number;
  retryAfter: string | null;
  body: string;
}

export interface Load {
  outcomes: Outcome[];
  stop(): Promise<Outcome[]>;
}

export interface LoadRequest {
  path: string;
  init?: () => RequestInit;
}

/** `concurrency` loops, each sending the requests in turn, until stop(). */
export function startLoad(baseUrl: string, requests: LoadRequest[], concurrency = 4): Load {
  const outcomes: Outcome[] = [];
  let running = true;
  const loop = async (offset: number) => {
    for (let i = offset; running; i++) {
      const { path, init } = requests[i % requests.length]!;
      const at = Date.now();
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          ...init?.(),
          signal: AbortSignal.timeout(15_000),
        });
        const body = await response.text();
        const retryAfter = response.headers.get('retry-after');
        outcomes.push({ at, path, status: response.status, ms: Date.now() - at, retryAfter, body });
      } catch (error) {
        outcomes.push({
          at,
          path,
          status: 0,
          ms: Date.now() - at,
          retryAfter: null,
          body: String(error),
        });
      }
      // Paced, so a two-core machine is not saturated by the test itself.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const loops = Array.from({ length: concurrency }, (_, i) => loop(i));
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long each outage lasts: short in the suite, 20 s when RESILIENCE_OUTAGE_MS=20000. */
export const OUTAGE_MS = Number(process.env.RESILIENCE_OUTAGE_MS ?? 8000);
