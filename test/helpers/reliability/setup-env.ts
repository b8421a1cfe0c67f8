// Jest `setupFiles` of the reliability project: points the shared test helpers at this suite's own
// database, ports and log directory. Jest gives each test file its own copy of process.env, so
// nothing leaks into the integration project.
import { reliabilityEnv } from './config';

Object.assign(process.env, reliabilityEnv());
