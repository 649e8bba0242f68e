package puppetdb

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestRealPuppetDB runs testdata/puppetdb/run.sh: a real PuppetDB and
// PostgreSQL, started on loopback for the test, loaded through the
// command API, and a compile against them that must equal the compile of
// the same facts from files. It runs when the packages are installed
// (apt-get install -y puppetdb postgresql) and -short is not given; it
// says so when it skips.
func TestRealPuppetDB(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: the real-PuppetDB test takes minutes (testdata/puppetdb/run.sh)")
	}
	if _, err := os.Stat("/usr/share/puppetdb/puppetdb.jar"); err != nil {
		t.Skip("skipped: PuppetDB is not installed (apt-get install -y puppetdb postgresql runs testdata/puppetdb/run.sh here)")
	}
	// The script stops PuppetDB and PostgreSQL when it ends: before the
	// test binary's deadline, it is asked to end (SIGTERM), not killed.
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Minute))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "../../../testdata/puppetdb/run.sh")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 77 {
		t.Skipf("skipped by run.sh:\n%s", out)
	}
	if err != nil {
		t.Fatalf("testdata/puppetdb/run.sh: %v (it needs minutes: give go test -timeout 20m on a busy machine)\n%s", err, out)
	}
	t.Logf("%s", out)
}
