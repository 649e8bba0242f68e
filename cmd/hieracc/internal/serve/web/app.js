// The web view of hieracc serve: a small client of the JSON API, with no
// dependency. Values arrive as JSON text; secret ones never arrive.
"use strict";

const main = () => document.getElementById("main");

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c == null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(path) {
  const r = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

const enc = encodeURIComponent;
const link = (hash, text) => el("a", { href: "#" + hash }, text);

function valueCell(v) {
  if (v.secret && v.value === undefined) return el("td", { class: "secret" }, "secret: not shown");
  if (v.error) return el("td", { class: "error" }, v.error);
  // YAML as 'hieracc lookup' prints it (the server renders it: key order
  // and large integers as they are, which JSON.parse would not keep).
  return el("td", { class: "value" }, v.yaml !== undefined ? v.yaml : JSON.stringify(v.value));
}

function show(...children) { main().replaceChildren(...children); }

async function searchView(q) {
  const [nodes, keys] = await Promise.all([api("/v1/nodes"), api("/v1/keys")]);
  document.getElementById("revision").textContent = nodes.revision ? "revision " + nodes.revision : "";
  const input = el("input", { type: "search", id: "q", placeholder: "Search keys and nodes", value: q || "" });
  const results = el("div", { class: "cols" });
  const render = () => {
    const s = input.value.trim().toLowerCase();
    const match = (x) => x.toLowerCase().includes(s);
    const ns = nodes.nodes.filter(match), ks = keys.keys.filter(match);
    results.replaceChildren(
      el("section", { id: "nodes" }, el("h2", {}, `Nodes (${ns.length})`),
        el("ul", { class: "list" }, ...ns.slice(0, 500).map((n) => el("li", {}, link("/node/" + enc(n), n))))),
      el("section", { id: "keys" }, el("h2", {}, `Keys (${ks.length})`),
        el("ul", { class: "list" }, ...ks.slice(0, 500).map((k) => el("li", {}, link("/key/" + enc(k), k))))));
  };
  input.addEventListener("input", render);
  render();
  show(el("h1", {}, "Search"), input, results);
  input.focus();
}

async function nodeView(node) {
  const n = await api(`/v1/nodes/${enc(node)}/keys?render=yaml`);
  const rows = n.keys.map((k) => el("tr", {},
    el("td", {}, link("/key/" + enc(k.key), k.key)),
    valueCell(k),
    el("td", {}, k.from ? k.from.level : ""),
    el("td", {}, k.from ? k.from.file + (k.from.line ? ":" + k.from.line : "") : "")));
  show(el("h1", {}, "Node ", el("span", { id: "node-name" }, node)),
    el("p", {}, `Environment ${n.environment}, revision ${n.revision}. `, link("/compare/" + enc(node), "Compare with another node")),
    el("table", { id: "node-keys" }, el("tr", {}, el("th", {}, "Key"), el("th", {}, "Value"), el("th", {}, "Level"), el("th", {}, "File")), ...rows));
}

async function keyView(key) {
  const k = await api(`/v1/keys/${enc(key)}?render=yaml`);
  const rows = k.groups.map((g) => el("tr", {},
    valueCell(g),
    el("td", {}, String(g.count)),
    el("td", {}, g.patterns.join(", ")),
    el("td", {}, ...g.nodes.slice(0, 20).flatMap((n) => [link("/node/" + enc(n), n), " "]), g.nodes.length > 20 ? `… and ${g.nodes.length - 20} more` : null)));
  show(el("h1", {}, "Who gets what: ", el("span", { id: "key-name" }, key)),
    el("table", { id: "groups" }, el("tr", {}, el("th", {}, "Value"), el("th", {}, "Nodes"), el("th", {}, "Patterns"), el("th", {}, "Which")), ...rows));
}

async function compareView(a, b) {
  const fa = el("input", { type: "text", id: "a", placeholder: "first node", value: a || "" });
  const fb = el("input", { type: "text", id: "b", placeholder: "second node", value: b || "" });
  const go = el("button", { id: "go" }, "Compare");
  go.addEventListener("click", () => { location.hash = `/compare/${enc(fa.value)}/${enc(fb.value)}`; });
  const parts = [el("h1", {}, "Compare two nodes"), el("p", {}, fa, " ", fb, " ", go)];
  if (a && b) {
    const c = await api(`/v1/compare/${enc(a)}/${enc(b)}?render=yaml`);
    const rows = c.keys.map((r) => el("tr", { class: r.same ? "" : "differs" },
      el("td", {}, link("/key/" + enc(r.key), r.key)), valueCell(r.a), valueCell(r.b)));
    parts.push(el("p", {}, `${c.keys.filter((r) => !r.same).length} of ${c.keys.length} keys differ.`),
      el("table", { id: "compare" }, el("tr", {}, el("th", {}, "Key"), el("th", {}, a), el("th", {}, b)), ...rows));
  }
  show(...parts);
}

async function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    switch (parts[0]) {
      case "node": return await nodeView(parts[1]);
      case "key": return await keyView(parts.slice(1).join("/"));
      case "compare": return await compareView(parts[1], parts[2]);
      default: return await searchView(parts[1]);
    }
  } catch (e) {
    show(el("p", { class: "error", id: "error" }, e.message));
  }
}

window.addEventListener("hashchange", route);
route();
