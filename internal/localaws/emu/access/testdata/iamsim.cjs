// Differential-check driver: reads a JSON array of cases on stdin, runs
// each through @cloud-copilot/iam-simulate (installed outside version
// control by scripts/iamsim.sh; its folder is the first argument) and
// prints one JSON line per case: {"id", "result"} or {"id", "error"}.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const dir = process.argv[2];
const req = createRequire(path.join(dir, 'package.json'));
const { runSimulation } = req('@cloud-copilot/iam-simulate');

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const cases = JSON.parse(input);
  const out = [];
  for (const c of cases) {
    const sim = {
      identityPolicies: (c.identity || []).map((p, i) => ({ name: 'p' + i, policy: p })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: c.resourcePolicy || undefined,
      request: {
        principal: c.principal,
        action: c.action,
        resource: { resource: c.resource, accountId: c.resourceAccount },
        contextVariables: c.context || {},
      },
    };
    try {
      const r = await runSimulation(sim, {});
      if (r.resultType === 'error') {
        out.push(JSON.stringify({ id: c.id, error: JSON.stringify(r.errors) }));
      } else {
        out.push(JSON.stringify({ id: c.id, result: r.overallResult }));
      }
    } catch (e) {
      out.push(JSON.stringify({ id: c.id, error: String(e && e.stack || e) }));
    }
  }
  process.stdout.write(out.join('\n') + '\n');
}
main().catch((e) => { console.error(e); process.exit(1); });
