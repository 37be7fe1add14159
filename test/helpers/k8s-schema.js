// Kubernetes manifests checked by Kubernetes' own schemas, strictly. kubernetes-models ships each
// API type's OpenAPI schema compiled into an ajv validator; @kubernetes-models/prometheus-operator
// does the same for the Prometheus Operator's CRDs. Those schemas, like the OpenAPI they come from,
// accept keys they do not name (no additionalProperties: false), so `livenessProbe.httpget` would
// pass, and a real API server would drop it or refuse it (kubectl's field validation is strict).
//
// The compiled validators read every property their schema names (`data.httpGet`) and enumerate
// the keys of a map (`for (k in data)`, labels and annotations). So the check runs the model's own
// validator over proxies that record which keys it read: a key it never read is one its schema does
// not know. Types, enums and required fields are the validator's own errors.

/**
 * The models by `apiVersion/kind`, or null where the packages cannot be loaded; `why` says why.
 * kubernetes-models declares engines node >=22 but runs on Node 20 (checked by these tests); if a
 * release stops doing so, the caller skips on the lines below 22 and fails on the others.
 * @returns {Promise<{models: Map<string, Function>|null, why: string|null}>}
 */
export async function loadModels() {
  try {
    const core = await import('kubernetes-models/v1');
    const apps = await import('kubernetes-models/apps/v1');
    const monitoring = await import('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1');
    const models = new Map();
    for (const mod of [core, apps, monitoring]) {
      for (const Model of Object.values(mod)) {
        if (typeof Model === 'function' && Model.apiVersion && Model.kind) models.set(`${Model.apiVersion}/${Model.kind}`, Model);
      }
    }
    return { models, why: null };
  } catch (err) {
    return { models: null, why: `kubernetes-models does not load on Node ${process.versions.node}: ${err.message}` };
  }
}

/**
 * Every problem of one manifest against its model's schema, as `path: message` lines; [] when valid.
 * @param {Map<string, Function>} models  from loadModels()
 * @param {object} manifest  a parsed manifest (plain data)
 * @returns {string[]}
 */
export function schemaErrors(models, manifest) {
  const Model = models.get(`${manifest?.apiVersion}/${manifest?.kind}`);
  if (!Model) return [`/: no schema for apiVersion ${manifest?.apiVersion} kind ${manifest?.kind}`];
  const { root, unknownKeys } = track(structuredClone(manifest));
  const errors = [];
  try {
    // The validator bound to the model, called on our proxy: `new Model(proxy)` would copy every
    // key (and so read every key) before validating.
    Model.prototype.validate.call(root);
  } catch (err) {
    if (!Array.isArray(err.errors)) throw err;
    for (const e of err.errors) errors.push(`${e.instancePath || '/'}: ${e.message}${e.params?.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''}`);
  }
  for (const { path, key, known } of unknownKeys()) {
    const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
    errors.push(`${path}/${key}: unknown field, not in the schema${near ? ` (did you mean "${near}"?)` : ''}`);
  }
  // A type is often checked at two levels (a field and the schema it refers to): say it once.
  return [...new Set(errors)];
}

// Wraps `value` so that the keys read through it are recorded, at every depth.
function track(value) {
  const seen = [];
  const wrap = (v, path) => {
    if (v === null || typeof v !== 'object') return v;
    const read = new Set();
    const kids = new Map();
    seen.push({ v, path, read });
    return new Proxy(v, {
      get(target, key, receiver) {
        if (typeof key !== 'string') return Reflect.get(target, key, receiver);
        // Absent keys too: a property the schema names is read whether or not it is set.
        read.add(key);
        if (!Object.hasOwn(target, key)) return Reflect.get(target, key, receiver);
        if (!kids.has(key)) kids.set(key, wrap(target[key], `${path}/${key}`));
        return kids.get(key);
      },
    });
  };
  const root = wrap(value, '');
  const unknownKeys = () => seen
    .filter(({ v }) => !Array.isArray(v))
    .flatMap(({ v, path, read }) => Object.keys(v).filter((k) => !read.has(k)).map((key) => ({ path, key, known: [...read] })));
  return { root, unknownKeys };
}
