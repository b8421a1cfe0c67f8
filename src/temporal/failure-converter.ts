// Loaded by path (codec.ts, FAILURE_CONVERTER_PATH) by workers, clients and the workflow bundle:
// failure messages and stack traces go into an encoded payload, which the payload codec encrypts.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
