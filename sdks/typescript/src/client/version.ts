/** The package's version (package.json's; a test checks they agree). */
export const VERSION = "0.1.0";
/** Sent with every request. */
export const USER_AGENT = `relay-sdk-typescript/${VERSION}`;
