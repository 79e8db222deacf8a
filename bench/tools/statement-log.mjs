// Preloaded into the core (`node --import ./bench/tools/statement-log.mjs dist/server.js`): counts every statement
// the core sends through pg (each query call is one round trip) and the wall time until its answer, by statement
// text. On SIGUSR2 it writes the totals so far as JSON to $STATEMENT_LOG; a measuring script diffs two dumps.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

const totals = new Map();
const original = pg.Client.prototype.query;

function record(text, started) {
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 160);
  const entry = totals.get(key) ?? { calls: 0, ms: 0 };
  entry.calls += 1;
  entry.ms += performance.now() - started;
  totals.set(key, entry);
}

pg.Client.prototype.query = function query(config, values, callback) {
  const text = typeof config === 'string' ? config : (config && config.text) || '(submittable)';
  const started = performance.now();
  if (typeof values === 'function') {
    const done = values;
    return original.call(this, config, (error, result) => (record(text, started), done(error, result)));
  }
  if (typeof callback === 'function') {
    return original.call(this, config, values, (error, result) => (record(text, started), callback(error, result)));
  }
  const answer = original.call(this, config, values);
  if (answer && typeof answer.then === 'function') {
    return answer.then(
      (result) => (record(text, started), result),
      (error) => {
        record(text, started);
        throw error;
      },
    );
  }
  return answer;
};

process.on('SIGUSR2', () => {
  fs.writeFileSync(process.env.STATEMENT_LOG, JSON.stringify(Object.fromEntries(totals)));
});
