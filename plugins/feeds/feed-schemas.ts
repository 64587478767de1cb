import Joi from 'joi';

const iso = Joi.string().isoDate();
const count = Joi.number().integer().min(0).required();

const loadSchema = Joi.object({
  id: Joi.string().required(),
  status: Joi.string().valid('staging', 'current', 'superseded', 'refused').required().description('`staging`: being read; `current`: the feed in force; `superseded`: replaced by a later load; `refused`: malformed or truncated, never in force (see `error`).'),
  source: Joi.object({
    kind: Joi.string().valid('file', 'url').required().description('`file`: `rampart feeds load`; `url`: the scheduled fetch.'),
    location: Joi.string().allow(null).required().description('The file path, or the URL without user info or query. Null unless the token holds the `admin` scope.'),
  }).required(),
  feed_date: Joi.string().allow(null).required().description('KEV `dateReleased`, EPSS `score_date` (ISO 8601). Null for a load refused before its header was read.'),
  feed_version: Joi.string().allow(null).required().description('KEV `catalogVersion`, EPSS `model_version`.'),
  rows: count.description('CVEs in the feed.'),
  added: count.description('CVEs new against the load in force before it.'),
  removed: count.description('CVEs the load in force before it had and this one does not.'),
  changed: count.description('CVEs in both whose values differ (any KEV field; EPSS score or percentile).'),
  sha256: Joi.string().allow(null).required().description('SHA-256 of the bytes as received (compressed, if they were).'),
  bytes: count,
  error: Joi.string().allow(null).required().description('Why a load was refused: where the feed broke and how.'),
  started_at: iso.required(),
  loaded_at: iso.allow(null).required().description('When the load became the feed in force.'),
}).label('FeedLoad');

export const feedStatusSchema = Joi.object({
  feed: Joi.string().valid('kev', 'epss').required(),
  current: loadSchema.allow(null).required().description('The load in force; null before the first accepted load.'),
  recent: Joi.array().items(loadSchema).required().description('The latest loads, newest first, refused ones included.'),
  schedule: Joi.object({
    url: Joi.string().allow(null).required().description('`feeds.<feed>.url` without user info or query (admin scope only); null when the scheduled fetch is off.'),
    interval_ms: Joi.number().integer().required(),
    next_fetch_at: iso.allow(null).required(),
    failures: count.description('Fetches failed in a row.'),
    last_error: Joi.string().allow(null).required().description('The last failed fetch\'s error (admin scope only).'),
    last_attempt_at: iso.allow(null).required(),
  }).allow(null).required(),
}).label('FeedStatus');

export const feedStatusQuery = Joi.object({
  recent: Joi.number().integer().min(1).max(50).default(5).description('Loads listed per feed.'),
});
