package relay

import "strings"

// The signature headers' names.
const (
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
)

// Headers is where the verifier reads the three signature headers: an
// http.Header (net/http's r.Header, which matches names case-insensitively)
// or a [HeaderMap]. Get returns "" for an absent header.
type Headers interface {
	Get(name string) string
}

// HeaderMap is a plain map of header names to values, looked up
// case-insensitively (the exact name first), for requests that arrive as a
// map, such as a serverless function's event.
type HeaderMap map[string]string

// Get returns the value of name, whatever the case of the map's key.
func (m HeaderMap) Get(name string) string {
	if v, ok := m[name]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func required(h Headers, name string) (string, error) {
	if h == nil {
		return "", &Error{Code: CodeMissingHeader, Header: name}
	}
	v := h.Get(name)
	if v == "" {
		return "", &Error{Code: CodeMissingHeader, Header: name}
	}
	return v, nil
}
