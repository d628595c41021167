package relay

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

const (
	versionHMAC    = "v1"
	versionEd25519 = "v1a"
)

// key is one parsed verification key.
type key struct {
	version string
	secret  []byte            // v1
	public  ed25519.PublicKey // v1a
	text    string            // the whpk_ string (public), for String
}

// verify checks one decoded signature over content.
func (k *key) verify(content, signature []byte) bool {
	if k.version == versionHMAC {
		mac := hmac.New(sha256.New, k.secret)
		mac.Write(content)
		return hmac.Equal(mac.Sum(nil), signature) // constant time
	}
	return len(signature) == ed25519.SignatureSize && ed25519.Verify(k.public, content, signature)
}

func (k *key) String() string {
	if k.version == versionHMAC {
		return "HmacKey(<redacted>)"
	}
	return "Ed25519Key(" + k.text + ")"
}

// decodeStrict decodes canonical standard base64 with padding; ok is false
// for anything else (a missing pad, non-zero unused bits, line breaks, which
// Go's decoder would otherwise skip).
func decodeStrict(text string) (raw []byte, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil || base64.StdEncoding.EncodeToString(raw) != text {
		return nil, false
	}
	return raw, true
}

// parseKey reads one "whsec_…" or "whpk_…" string (surrounding whitespace
// ignored).
func parseKey(input string) (*key, error) {
	text := strings.TrimSpace(input)
	switch {
	case strings.HasPrefix(text, "whsec_"):
		raw, ok := decodeStrict(strings.TrimPrefix(text, "whsec_"))
		if !ok {
			return nil, &KeyError{Reason: "the key is not valid base64"}
		}
		if len(raw) < 24 || len(raw) > 64 {
			return nil, &KeyError{Reason: fmt.Sprintf("the key has %d bytes; an HMAC secret has 24 to 64 bytes", len(raw))}
		}
		return &key{version: versionHMAC, secret: raw}, nil
	case strings.HasPrefix(text, "whpk_"):
		raw, ok := decodeStrict(strings.TrimPrefix(text, "whpk_"))
		if !ok {
			return nil, &KeyError{Reason: "the key is not valid base64"}
		}
		if len(raw) != ed25519.PublicKeySize {
			return nil, &KeyError{Reason: fmt.Sprintf("the key has %d bytes; an Ed25519 public key has 32 bytes", len(raw))}
		}
		return &key{version: versionEd25519, public: ed25519.PublicKey(raw), text: text}, nil
	case strings.HasPrefix(text, "whsk_"):
		return nil, &KeyError{Reason: "this is an Ed25519 signing key (whsk_); verify with its public key (whpk_) and keep the signing key out of consumers"}
	}
	return nil, &KeyError{Reason: "a verification key starts with whsec_ (v1) or whpk_ (v1a)"}
}
