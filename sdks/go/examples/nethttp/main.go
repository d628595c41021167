// Command nethttp receives Relay's webhooks with net/http.
package main

import (
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	relay "github.com/relay/relay-go"
)

func main() {
	// One or more keys, space-separated: during a rotation, the new and the old.
	handler, err := newHandler(strings.Fields(os.Getenv("RELAY_WEBHOOK_KEYS")))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/webhooks/relay", handler)
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", nil))
}

func newHandler(keys []string) (http.Handler, error) {
	verifier, err := relay.NewVerifier(keys)
	if err != nil {
		return nil, err
	}
	seen := relay.NewMemorySeenStore() // one process; use a shared SeenStore with several
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		// The raw bytes, exactly as received: never re-encoded JSON.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var failed *relay.Error
		switch err := verifier.VerifyOnce(r.Header, body, seen); {
		case errors.Is(err, relay.ErrDuplicate):
			w.WriteHeader(http.StatusOK) // already processed: a 2xx stops Relay's retries
			return
		case errors.As(err, &failed):
			w.WriteHeader(http.StatusUnauthorized) // Relay retries 401 (e.g. while a new key deploys)
			io.WriteString(w, failed.Code)
			return
		case err != nil:
			w.WriteHeader(http.StatusServiceUnavailable) // the store failed: Relay retries
			return
		}
		var event struct{ Type, ID string } // authentic: now parse it
		if err := json.Unmarshal(body, &event); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		log.Println(event.Type, event.ID)
		w.WriteHeader(http.StatusNoContent)
	}), nil
}
