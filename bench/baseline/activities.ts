// The baseline's one activity: does nothing, so what is measured is Temporal's round trip.
export function createBaselineActivities() {
  return {
    async noop(): Promise<void> {},
  };
}

export type BaselineActivities = ReturnType<typeof createBaselineActivities>;
