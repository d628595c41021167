// The portal's look: CSS custom properties, set from the tenant's brand and
// overridable by the host page.
//
// Every colour the styles use is `var(--relay-X, var(--_brand-X, default))`:
// a host page that sets `--relay-primary` on the element wins; otherwise
// the tenant's brand (from the API, set here as `--_brand-*` on the
// component's root); otherwise Relay's defaults. Defaults keep text at a
// contrast ratio of at least 4.5:1 in both themes.

export const STYLES = `
:host {
  display: block;
  color-scheme: light dark;
}
:host([fill]) .root { min-height: 100vh; }
.root {
  --_bg-light: #ffffff; --_text-light: #1a1a1a; --_muted-light: #545454; --_surface-light: #f3f4f6; --_border-light: #c9ccd1;
  --_bg-dark: #14161a; --_text-dark: #f1f1f1; --_muted-dark: #b8b8b8; --_surface-dark: #22252b; --_border-dark: #4a4f57;
  --_bg: var(--_bg-light); --_text: var(--_text-light); --_muted: var(--_muted-light);
  --_surface: var(--_surface-light); --_border: var(--_border-light);
  --bg: var(--relay-background, var(--_brand-background, var(--_bg)));
  --text: var(--relay-text, var(--_brand-text, var(--_text)));
  --primary: var(--relay-primary, var(--_brand-primary, #0b57d0));
  --on-primary: var(--relay-on-primary, #ffffff);
  --muted: var(--relay-muted, var(--_muted));
  --surface: var(--relay-surface, var(--_surface));
  --border: var(--relay-border, var(--_border));
  --danger: var(--relay-danger, #b3261e);
  --ok: var(--relay-ok, #146c2e);
  --font: var(--relay-font, var(--_brand-font, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif));
  --radius: var(--relay-radius, 6px);
  background: var(--bg);
  color: var(--text);
  font-family: var(--font);
  font-size: 15px;
  line-height: 1.45;
  padding: 16px;
  min-height: 100%;
  box-sizing: border-box;
}
.root[data-theme="dark"] {
  --_bg: var(--_bg-dark); --_text: var(--_text-dark); --_muted: var(--_muted-dark);
  --_surface: var(--_surface-dark); --_border: var(--_border-dark);
  --primary: var(--relay-primary, var(--_brand-primary, #8ab4f8));
  --on-primary: var(--relay-on-primary, #0b1a33);
  --danger: var(--relay-danger, #f2b8b5);
  --ok: var(--relay-ok, #6dd58c);
}
@media (prefers-color-scheme: dark) {
  .root[data-theme="auto"] {
    --_bg: var(--_bg-dark); --_text: var(--_text-dark); --_muted: var(--_muted-dark);
    --_surface: var(--_surface-dark); --_border: var(--_border-dark);
    --primary: var(--relay-primary, var(--_brand-primary, #8ab4f8));
    --on-primary: var(--relay-on-primary, #0b1a33);
    --danger: var(--relay-danger, #f2b8b5);
    --ok: var(--relay-ok, #6dd58c);
  }
}
.root.nested { padding: 0; min-height: 0; }
* { box-sizing: border-box; }
header.brand { display: flex; align-items: center; gap: 12px; margin-bottom: 12px; }
header.brand img { max-height: 36px; max-width: 160px; }
h1 { font-size: 1.3rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 16px 0 8px; }
h3 { font-size: 1rem; margin: 12px 0 6px; }
p, dl { margin: 6px 0; }
.muted { color: var(--muted); }
button, input, select, textarea { font: inherit; color: inherit; }
button {
  background: var(--primary); color: var(--on-primary); border: 1px solid var(--primary);
  border-radius: var(--radius); padding: 6px 12px; cursor: pointer; min-height: 32px;
}
button.secondary { background: transparent; color: var(--text); border-color: var(--border); }
button.danger { background: transparent; color: var(--danger); border-color: var(--danger); }
button:disabled { opacity: 0.55; cursor: not-allowed; }
input, select, textarea {
  background: var(--bg); border: 1px solid var(--border); border-radius: var(--radius); padding: 6px 8px; min-height: 32px;
}
:focus-visible { outline: 3px solid var(--primary); outline-offset: 2px; }
label { display: block; font-weight: 600; margin: 8px 0 4px; }
fieldset { border: 1px solid var(--border); border-radius: var(--radius); margin: 8px 0; padding: 8px 12px; }
legend { font-weight: 600; padding: 0 4px; }
fieldset label { display: inline-flex; gap: 6px; font-weight: normal; margin: 2px 12px 2px 0; align-items: center; }
.row { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin: 8px 0; }
[role="tablist"] { display: flex; gap: 4px; border-bottom: 1px solid var(--border); margin: 8px 0 12px; flex-wrap: wrap; }
[role="tab"] {
  background: transparent; color: var(--text); border: 1px solid transparent; border-bottom: 3px solid transparent;
  border-radius: var(--radius) var(--radius) 0 0;
}
[role="tab"][aria-selected="true"] { border-bottom-color: var(--primary); font-weight: 600; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--border); vertical-align: top; }
th { font-weight: 600; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: 8px; overflow: auto; white-space: pre-wrap; word-break: break-word; max-height: 320px; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: 12px; margin: 8px 0; }
.state { font-weight: 600; }
.state-delivered, .state-active { color: var(--ok); }
.state-failed_permanent, .state-exhausted, .state-dead_lettered, .state-disabled, .state-expired { color: var(--danger); }
.status { min-height: 1.4em; margin: 8px 0; }
.error { color: var(--danger); }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { margin: 4px 0; }
a, .link { color: var(--primary); }
.link { background: none; border: none; padding: 0; min-height: 0; text-decoration: underline; cursor: pointer; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** Applies `brand` (from the session) to the component root `root`. */
export function applyBrand(root, brand) {
  const set = (name, v) => {
    if (v) root.style.setProperty(name, v);
    else root.style.removeProperty(name);
  };
  set("--_brand-primary", brand && brand.primary_color);
  set("--_brand-background", brand && brand.background_color);
  set("--_brand-text", brand && brand.text_color);
  set("--_brand-font", brand && brand.font_family);
  root.dataset.theme = (brand && brand.theme) || "auto";
}
