// Request schema of GET /openapi.json and GET /docs: which version the document describes.
import Joi from 'joi';
import { DEFAULT_VERSION, KNOWN_VERSIONS, type ApiVersion } from '../../representations/versions';

export const documentQuerySchema = Joi.object<{ version: ApiVersion }>({
  version: Joi.string().valid(...KNOWN_VERSIONS).default(DEFAULT_VERSION)
    .messages({ 'any.only': `{{#label}} must be a known Service-Version (${KNOWN_VERSIONS.join(' or ')})` })
    .description(`The version described: \`${DEFAULT_VERSION}\` (the default) or an older one.`),
});
