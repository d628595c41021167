package relay

// Version is this module's version, the same as Relay's other verifier
// SDKs'; publishing tags the module with "v" + Version.
const Version = "0.1.0"
