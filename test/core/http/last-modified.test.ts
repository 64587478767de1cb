import test from 'ava';
import { formatHttpDate, isNotModified, lastModifiedSecond, parseHttpDate, safeSecond } from '../../../core/http/last-modified.ts';

const S = 1_700_000_000; // a whole second, epoch seconds

test('Last-Modified is the change second once that second is safely past', (t) => {
  t.is(lastModifiedSecond(S * 1000 + 250, (S + 10) * 1000), S);
  t.is(safeSecond((S + 10) * 1000 + 999), S + 8);
});

test('a change in the current second is never claimed: Last-Modified stays two seconds back', (t) => {
  const change = S * 1000 + 100;
  t.is(lastModifiedSecond(change, S * 1000 + 200), S - 2);
  t.is(lastModifiedSecond(change, (S + 1) * 1000 + 500), S - 1);
  t.is(lastModifiedSecond(change, (S + 2) * 1000), S);
});

test('a later change within the same second as a sent Last-Modified is never answered 304', (t) => {
  // Response computed at S.300 after a change at S.100: Last-Modified sent = S - 2.
  const sent = lastModifiedSecond(S * 1000 + 100, S * 1000 + 300);
  // Another change at S.900, the same second as the first one.
  for (const askedAt of [S * 1000 + 950, (S + 1) * 1000 + 10, (S + 5) * 1000, (S + 3600) * 1000]) {
    t.false(isNotModified(sent, S * 1000 + 900, askedAt), `asked at ${askedAt}`);
  }
  // And once everything is settled, the new Last-Modified is S and that one revalidates.
  const later = lastModifiedSecond(S * 1000 + 900, (S + 5) * 1000);
  t.is(later, S);
  t.true(isNotModified(later, S * 1000 + 900, (S + 6) * 1000));
});

test('a write stamped before a response but committed after it is not hidden by 304', (t) => {
  // Response computed at (S+1).200 while a write stamped S.900 had not committed: the source
  // showed an older change at (S-5).000. Last-Modified sent = S - 5.
  const sent = lastModifiedSecond((S - 5) * 1000, (S + 1) * 1000 + 200);
  t.is(sent, S - 5);
  t.false(isNotModified(sent, S * 1000 + 900, (S + 2) * 1000));
});

test('If-Modified-Since: equal or later second is 304; earlier is 200; too recent (made up) is 200', (t) => {
  const change = (S - 100) * 1000 + 700;
  const now = S * 1000;
  t.true(isNotModified(S - 100, change, now));
  t.true(isNotModified(S - 50, change, now));
  t.false(isNotModified(S - 101, change, now));
  t.false(isNotModified(S, change, now), 'a date we could not have sent yet');
  t.false(isNotModified(S + 3600, change, now));
});

test('HTTP-date parsing and formatting', (t) => {
  t.is(formatHttpDate(784111777), 'Sun, 06 Nov 1994 08:49:37 GMT');
  t.is(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), 784111777);
  t.is(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), 784111777);
  t.is(parseHttpDate('Sun Nov  6 08:49:37 1994'), Math.floor(Date.parse('Sun Nov  6 08:49:37 1994') / 1000));
  t.is(parseHttpDate('yesterday'), null);
  t.is(parseHttpDate(undefined), null);
  t.is(parseHttpDate(['a', 'b']), null);
});
