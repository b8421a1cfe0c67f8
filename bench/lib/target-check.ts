// One target of the report checked against a run's measurements. Its own module: the report reads
// the checks that the scenario modules compute, and those must not import the report back.
export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | null;
}
