package relay_test

// The module is the artifact: it builds and verifies with the go command
// alone, carries its README and LICENSE, and has the version of Relay's
// other SDKs.

import (
	"archive/zip"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	relay "github.com/relay/relay-go"
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
	if module.Path != "github.com/relay/relay-go" || !module.Main || module.GoVersion != "1.19" {
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
	if relay.Version != pkg.Version {
		t.Fatalf("Version %s, sdks/typescript %s", relay.Version, pkg.Version)
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

// The module zip, as a module proxy serves it, is what `go get` fetches:
// built here with archive/zip in the layout the go command expects
// (<module>@<version>/<file>), served from a file:// proxy, and fetched and
// built by a program that uses both the client and the verifier.
func TestTheModuleZipBuildsAProgram(t *testing.T) {
	const module = "github.com/relay/relay-go"
	version := "v" + relay.Version
	proxy := t.TempDir()
	at := filepath.Join(proxy, filepath.FromSlash(module), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	archive, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(archive)
	var names []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := w.Create(module + "@" + version + "/" + filepath.ToSlash(path))
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(path))
		_, err = f.Write(raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	archive.Close()
	listed := " " + strings.Join(names, " ") + " "
	for _, want := range []string{"go.mod", "LICENSE", "README.md", "client.go", "generated_types.go", "generated_operations.go", "verifier.go"} {
		if !strings.Contains(listed, " "+want+" ") {
			t.Fatalf("%s is not in the zip: %s", want, listed)
		}
	}
	goMod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		version + ".mod":  string(goMod),
		version + ".info": `{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`,
		"list":            version + "\n",
	} {
		if err := os.WriteFile(filepath.Join(at, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	app := t.TempDir()
	files := map[string]string{
		"go.mod": "module app\n\ngo 1.19\n\nrequire " + module + " " + version + "\n",
		"main.go": `package main

import (
	"fmt"

	relay "github.com/relay/relay-go"
)

func main() {
	client := relay.NewClient("rk_test_x")
	_, err := relay.NewVerifier([]string{"whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4="})
	fmt.Println(client, err, relay.UserAgent)
}
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(app, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
		cmd.Dir = app
		cmd.Env = append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off",
			"GOFLAGS=-mod=mod -modcacherw", "GOMODCACHE="+filepath.Join(app, "modcache"), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("build", "-o", "app", ".")
	out, err := exec.Command(filepath.Join(app, "app")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "relay-sdk-go/"+relay.Version) || strings.Contains(string(out), "rk_test_x") {
		t.Fatalf("%s %v", out, err)
	}
}
