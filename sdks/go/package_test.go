package relayverify_test

// The module is the artifact: it builds and verifies with the go command
// alone, carries its README and LICENSE, and has the version of Relay's
// other SDKs.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	relayverify "github.com/relay/relay-verify-go"
)

func goCommand(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestTheModuleIsPublishable(t *testing.T) {
	var module struct {
		Path, GoVersion string
		Main            bool
	}
	if err := json.Unmarshal([]byte(goCommand(t, "list", "-m", "-json")), &module); err != nil {
		t.Fatal(err)
	}
	if module.Path != "github.com/relay/relay-verify-go" || !module.Main || module.GoVersion != "1.19" {
		t.Fatalf("%+v", module)
	}
	// No dependency beyond the standard library.
	if deps := strings.TrimSpace(goCommand(t, "list", "-m", "all")); deps != module.Path {
		t.Fatalf("modules: %s", deps)
	}
	if _, err := os.Stat("go.sum"); !os.IsNotExist(err) {
		t.Fatal("a module without dependencies has no go.sum")
	}
	goCommand(t, "mod", "verify")
	goCommand(t, "build", "./...")
	license, err := os.ReadFile("LICENSE")
	if err != nil || !strings.Contains(string(license), "Apache License\n                           Version 2.0") {
		t.Fatalf("LICENSE: %v", err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil || !strings.Contains(string(readme), "go get "+module.Path) {
		t.Fatalf("README.md: %v", err)
	}
}

func TestTheVersionIsTheOtherSDKs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "typescript", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if relayverify.Version != pkg.Version {
		t.Fatalf("Version %s, sdks/typescript %s", relayverify.Version, pkg.Version)
	}
}

func TestTheReadmeShowsTheExampleVerbatim(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(filepath.Join("examples", "nethttp", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(example)+"```") {
		t.Fatal("README.md must show examples/nethttp/main.go verbatim")
	}
}
