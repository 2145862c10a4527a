// The API this page came from: JSON requests, and what to say when it refuses.
import { $ } from "./dom.js";

/** A request that got no usable answer; its message is what the page shows. */
export class Refused extends Error {}

let unsigned = () => {}; // told when a request is refused for want of a signature

/** Whom to tell when the API refuses unsigned requests (auth=iam): every later request would be refused the same. */
export function onUnsigned(callback) {
  unsigned = callback;
}

/** The answer's status and its JSON body (null when it has none); Refused when no answer came. */
export async function api(path, options) {
  let response;
  try {
    const headers = { accept: "application/json", ...(options && options.headers) };
    response = await fetch(path, { ...options, headers });
  } catch (error) {
    throw new Refused("the API did not answer (" + error.message + ")");
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (response.status === 403 && !(body && body.error)) {
    unsigned();
    notice(
      "This deployment requires SigV4-signed requests (auth=iam), and a browser cannot sign them. Open the " +
        "console through a local signing proxy instead (docs/deploy.md, 'The web console'), or deploy with " +
        "auth=none behind your own access control.",
    );
    throw new Refused("refused: requests must be signed (auth=iam)");
  }
  return { status: response.status, body };
}

/** An API refusal in words: its error's code and message, or the HTTP status. */
export const problem = (answer) => {
  const error = answer.body && answer.body.error;
  return error ? error.code + ": " + error.message : "HTTP " + answer.status;
};

/** The answer of a request whose failure the panel shows in place: a failure is an answer of status 0. */
export const settled = (path) => api(path).catch((error) => ({ status: 0, body: null, error }));

/** Shows a banner above the page. */
export function notice(text) {
  $("notice").textContent = text;
  $("notice").hidden = false;
}
