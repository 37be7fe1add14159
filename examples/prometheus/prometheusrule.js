// Writes ../kubernetes/prometheusrule.yaml from nodesup-alerts.yaml: the same rules as a
// PrometheusRule for the Prometheus Operator, one source of truth. After editing the rules, run
// `node examples/prometheus/prometheusrule.js`; test/report/alerts.test.js fails until you do.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RULES = new URL('./nodesup-alerts.yaml', import.meta.url);
export const TARGET = new URL('../kubernetes/prometheusrule.yaml', import.meta.url);

const HEADER = `# GENERATED from examples/prometheus/nodesup-alerts.yaml by \`node examples/prometheus/prometheusrule.js\`:
# edit that file and rerun. For the Prometheus Operator (CRD monitoring.coreos.com/v1), beside
# podmonitor.yaml: nodesup's alerting rules, whose runbooks name the pod to \`kubectl exec\` into.
# Your Prometheus resource's ruleSelector must match these labels (a Helm install often wants
# \`release: <its release name>\` too).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: api-nodesup
  labels:
    app.kubernetes.io/name: api
spec:
`;

/** The PrometheusRule manifest holding the rule groups of a Prometheus rules file, comments kept. */
export function prometheusRule(rulesText) {
  const groups = rulesText.slice(rulesText.search(/^groups:/m)); // the rules file's own header stays there
  return HEADER + groups.split('\n').map((line) => (line ? `  ${line}` : line)).join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(TARGET, prometheusRule(fs.readFileSync(RULES, 'utf8')));
}
