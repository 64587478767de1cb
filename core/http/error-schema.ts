import Joi from 'joi';

/** The one error body, documented in OpenAPI for every error status. */
export const errorSchema = Joi.object({
  status: Joi.string().valid('error').required(),
  error: Joi.object({
    code: Joi.string().pattern(/^[a-z][a-z0-9_]*$/).required().description('Stable snake_case code.'),
    message: Joi.string().required().description('Human-readable sentence.'),
    details: Joi.array()
      .items(Joi.object({ field: Joi.string().required(), location: Joi.string(), message: Joi.string().required() }))
      .description('Per-field problems, for validation_failed.'),
    request_id: Joi.string().description('Correlates with the server log (5xx).'),
  })
    .unknown(true)
    .required(),
}).label('Error');
