package relay_test

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	relay "github.com/relay/relay-go"
)

// A Standard Webhooks reference request, verified with the endpoint's
// public key.
func ExampleVerifier_VerifyAt() {
	verifier, err := relay.NewVerifier([]string{"whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4="})
	if err != nil {
		panic(err)
	}
	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==")
	body := []byte(`{"test": 2432232314}`)

	fmt.Println(verifier.VerifyAt(h, body, time.Unix(1614265330, 0)))
	err = verifier.VerifyAt(h, []byte(`{"test": 1}`), time.Unix(1614265330, 0))
	fmt.Println(errors.Is(err, relay.ErrNoMatchingSignature), err)
	// Output:
	// <nil>
	// true no signature matched any key
}
