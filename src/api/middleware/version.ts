// Service-Version resolution (docs/api-reference.md, "Versions and shapes"): header, else the
// merchant default. Routes that exist in one shape only pass that shape and always answer in it.
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { AppContext } from '../context';
import { isKnownVersion, isWellFormedVersion, shapeOf, versionOf, type ApiVersion, type Shape } from '../../representations/versions';

export function resolveVersion(fixedShape?: Shape) {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const header = ctx.get('service-version');
    if (header !== '' && (!isWellFormedVersion(header) || !isKnownVersion(header))) {
      throw new ApiError('parameter_invalid', {
        param: 'Service-Version',
        message: isWellFormedVersion(header)
          ? `Service-Version ${header} is not a known version.`
          : 'Service-Version must be a date in the form YYYY-MM-DD.',
      });
    }
    const requested: ApiVersion = header !== '' ? (header as ApiVersion) : resolveDefault(ctx);
    const shape = fixedShape ?? shapeOf(requested);
    ctx.state.shape = shape;
    ctx.state.version = fixedShape ? versionOf(fixedShape) : requested;
    await next();
  };
}

function resolveDefault(ctx: AppContext): ApiVersion {
  const configured = ctx.state.auth?.merchant.default_version ?? '';
  return isKnownVersion(configured) ? configured : versionOf('A');
}
