// The hosted page's start-up (/portal, /portal/{tenant}/{environment}):
// takes the portal token from the URL fragment (#token=…, never sent to a
// server), removes it from the address bar and the history at once, and
// hands it to <relay-portal> as a property.
//
// Framed, the page also checks the token's allowed origins against its
// ancestors where the browser tells them (location.ancestorOrigins), in
// addition to the frame-ancestors policy the server sent.

import "./relay-portal.js";

const params = new URLSearchParams(location.hash.slice(1));
const token = params.get("token");
history.replaceState(null, "", location.pathname);

const portal = document.querySelector("relay-portal");
const notice = document.getElementById("notice");

function refuse(text) {
  portal.remove();
  notice.textContent = text;
  notice.hidden = false;
}

async function start() {
  if (!token) {
    refuse("This page opens with a portal link. Ask the site that sent you here for a new one.");
    return;
  }
  const framed = window.top !== window.self;
  if (framed && location.ancestorOrigins && location.ancestorOrigins.length) {
    const res = await fetch("/v1/portal/session", {
      headers: { Authorization: `Bearer ${token}` },
      credentials: "omit",
      cache: "no-store",
    });
    if (res.ok) {
      const session = await res.json();
      const allowed = session.allowed_origins || [];
      const ancestors = [...location.ancestorOrigins];
      if (!ancestors.every((o) => allowed.includes(o) || o === location.origin)) {
        refuse("This portal may not be shown inside this page.");
        return;
      }
    }
  }
  portal.token = token;
}

start();
