// Building blocks of the provisioned dashboards (used by generate.mjs): variables, targets, panels, grid layout.
export const DS = { type: 'influxdb', uid: 'cdn-influxdb' };

export function variable(name, query, label = name) {
  return {
    name,
    label,
    type: 'query',
    datasource: DS,
    query,
    definition: query,
    refresh: 2,
    multi: true,
    includeAll: true,
    current: { selected: true, text: ['All'], value: ['$__all'] },
    sort: 1,
  };
}

export const accountVar = variable('account', 'SHOW TAG VALUES WITH KEY = "account"');

/** A target: `alias` uses Grafana's $tag_<key> / $col patterns; `table` asks for table-shaped results. */
export function q(query, alias = '', table = false) {
  return {
    datasource: DS,
    query,
    rawQuery: true,
    resultFormat: table ? 'table' : 'time_series',
    ...(alias ? { alias } : {}),
  };
}

/**
 * A panel: `type` is a Grafana panel plugin id; `w` in grid columns (of 24); `opts` may carry unit, interval (min
 * interval: a bucket never spans less than what the collector writes), stack, description, timeFrom (the panel's own
 * relative range, e.g. `7d`, instead of the dashboard's) and noValue (the text shown instead of "No data": what the
 * panel needs to show something).
 */
export function panel(type, title, targets, w, opts = {}) {
  const custom =
    type === 'timeseries'
      ? {
          drawStyle: 'line',
          lineWidth: 1,
          fillOpacity: opts.stack ? 40 : 10,
          stacking: { mode: opts.stack ? 'normal' : 'none', group: 'A' },
          spanNulls: true,
          showPoints: 'never',
        }
      : {};
  return {
    type,
    title,
    ...(opts.description ? { description: opts.description } : {}),
    ...(opts.timeFrom ? { timeFrom: opts.timeFrom } : {}),
    datasource: DS,
    ...(opts.interval ? { interval: opts.interval } : {}),
    targets: targets.map((t, i) => ({ refId: String.fromCharCode(65 + i), ...t })),
    fieldConfig: {
      defaults: {
        unit: opts.unit ?? 'short',
        custom,
        ...(opts.decimals !== undefined ? { decimals: opts.decimals } : {}),
        ...(opts.noValue ? { noValue: opts.noValue } : {}),
      },
      overrides: [],
    },
    options:
      type === 'stat'
        ? {
            reduceOptions: { calcs: [opts.calc ?? 'lastNotNull'], fields: '', values: false },
            colorMode: 'value',
            graphMode: 'area',
            textMode: 'auto',
          }
        : type === 'table'
          ? { showHeader: true, sortBy: opts.sortBy ? [{ displayName: opts.sortBy, desc: true }] : [] }
          : type === 'state-timeline'
            ? { showValue: 'auto', mergeValues: true, alignValue: 'left' }
            : {
                legend: { displayMode: 'table', placement: 'bottom', calcs: ['mean', 'max', 'lastNotNull'] },
                tooltip: { mode: 'multi', sort: 'desc' },
              },
    w,
    h: opts.h ?? (type === 'stat' ? 4 : 8),
  };
}

/** Lays panels out left to right in rows of 24 columns and numbers them. */
export function layout(panels) {
  let x = 0;
  let y = 0;
  let rowH = 0;
  return panels.map((p, i) => {
    if (x + p.w > 24) {
      x = 0;
      y += rowH;
      rowH = 0;
    }
    const { w, h, ...rest } = p;
    const placed = { id: i + 1, gridPos: { x, y, w, h }, ...rest };
    x += w;
    rowH = Math.max(rowH, h);
    return placed;
  });
}

export function dashboard(uid, title, description, variables, panels, refresh = '1m') {
  return {
    uid,
    title,
    description,
    tags: ['cdn', 'cdn-collector'],
    timezone: 'browser',
    editable: false,
    graphTooltip: 1,
    refresh,
    schemaVersion: 39,
    version: 1,
    time: { from: 'now-24h', to: 'now' },
    templating: { list: variables },
    links: [{ type: 'dashboards', tags: ['cdn-collector'], asDropdown: true, title: 'CDN dashboards' }],
    annotations: { list: [] },
    panels: layout(panels),
  };
}
