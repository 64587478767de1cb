import Joi from 'joi';

const iso = Joi.string().isoDate();

/** What a sign-in answers: password login and single sign-on alike. */
export const loginSchema = Joi.object({
  token: Joi.string().required(),
  token_type: Joi.string().valid('Bearer').required(),
  token_id: Joi.string().required(),
  expires_at: iso.required(),
  scopes: Joi.array().items(Joi.string()).required(),
  tenant_id: Joi.string().required(),
  user_id: Joi.string().required(),
}).label('LoginResult');

