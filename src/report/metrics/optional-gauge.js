// A label-less gauge that is absent, not 0, while its value is unknown (prom-client's own Gauge
// always shows an unlabelled series, as 0 after a reset).
import client from './prom.js';

/** A Gauge whose one series comes from read() at scrape time, omitted when null or not finite. */
export class OptionalGauge extends client.Gauge {
  constructor({ read, ...opts }) {
    super(opts);
    this.read = read;
  }

  async get() {
    const v = this.read();
    const values = v === null || !Number.isFinite(v) ? [] : [{ value: v, labels: {} }];
    return { help: this.help, name: this.name, type: this.type, values, aggregator: this.aggregator };
  }
}
