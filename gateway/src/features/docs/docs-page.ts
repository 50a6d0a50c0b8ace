// The documentation page: plain HTML and a small script that renders /api/v1/openapi.json.
export const DOCS_PAGE = `<!doctype html>
<html lang="tr">
<head>
<meta charset="utf-8">
<title>Dashboard External API</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; color: #222; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .3rem; }
.op { border: 1px solid #ddd; border-radius: 6px; margin: 1rem 0; padding: .5rem 1rem; }
.method { font-weight: bold; display: inline-block; min-width: 4rem; }
pre { background: #f6f8fa; padding: .5rem; overflow-x: auto; font-size: .85rem; }
</style>
</head>
<body>
<h1>Dashboard External API</h1>
<p id="description"></p>
<div id="operations">Yükleniyor…</div>
<h2>Şemalar</h2>
<div id="schemas"></div>
<script src="/api/v1/docs/docs.js"></script>
</body>
</html>
`;

export const DOCS_SCRIPT = `(async () => {
  const doc = await (await fetch('/api/v1/openapi.json')).json();
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text) e.textContent = text; if (cls) e.className = cls; return e; };
  document.getElementById('description').textContent = doc.info.description + ' (v' + doc.info.version + ')';
  const ops = document.getElementById('operations');
  ops.textContent = '';
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const box = el('div', '', 'op');
      const title = el('h3');
      title.append(el('span', method.toUpperCase(), 'method'), ' ' + path);
      box.append(title);
      if (op.description) box.append(el('p', op.description));
      box.append(el('p', (op.security && op.security.length ? 'Bearer token' : 'Token gerekmez') + ' · ' + op.operationId));
      if (op.parameters) box.append(el('pre', 'Parametreler\\n' + JSON.stringify(op.parameters, null, 2)));
      if (op.requestBody) box.append(el('pre', 'İstek gövdesi\\n' + JSON.stringify(op.requestBody, null, 2)));
      box.append(el('pre', 'Yanıtlar\\n' + JSON.stringify(op.responses, null, 2)));
      ops.append(box);
    }
  }
  const schemas = document.getElementById('schemas');
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    schemas.append(el('h3', name), el('pre', JSON.stringify(schema, null, 2)));
  }
})();
`;
