package main

// hcc serve and hcc worker: the NATS JetStream cluster (package cluster).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hcc-fhe/hcc/cluster"
)

// clusterFlags are the connection flags of worker and submit.
type clusterFlags struct {
	server, tokenFile, nkeySeed, tlsCA string
	replicas                           int
	verbose                            bool
}

func (f *clusterFlags) declare(fs *flag.FlagSet) {
	def := os.Getenv("HCC_NATS_URL")
	if def == "" {
		def = "nats://" + cluster.DefaultListen
	}
	fs.StringVar(&f.server, "server", def, "NATS server `URL` (comma-separated for a cluster; env HCC_NATS_URL)")
	fs.StringVar(&f.tokenFile, "token-file", "", "read the server's auth token from `FILE` (or env HCC_NATS_TOKEN)")
	fs.StringVar(&f.nkeySeed, "nkey-seed", "", "authenticate with the NKey seed in `FILE`")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "trust the server certificate's CA in `FILE` (PEM; implies TLS)")
	fs.IntVar(&f.replicas, "replicas", 1, "replicas of hcc's streams if this client creates them (3 on a NATS cluster)")
}

// token is the auth token from --token-file or HCC_NATS_TOKEN; a file keeps
// it out of the process list.
func token(file string) (string, error) {
	if file == "" {
		return os.Getenv("HCC_NATS_TOKEN"), nil
	}
	data, err := readLimited(file, "token file", maxSecretFile, false)
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(data))
	if t == "" {
		return "", fmt.Errorf("token file %s is empty", file)
	}
	return t, nil
}

func (f *clusterFlags) connect(ctx context.Context, name string) (*cluster.Client, error) {
	tok, err := token(f.tokenFile)
	if err != nil {
		return nil, err
	}
	return cluster.Connect(ctx, cluster.ConnectConfig{URL: f.server, Token: tok, NKeySeedFile: f.nkeySeed, TLSCA: f.tlsCA, Name: name, Replicas: f.replicas})
}

// interrupted is a context cancelled by SIGINT or SIGTERM.
func interrupted() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func defaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "hcc", "cluster")
}

func serveCommand() *command {
	var (
		listen, store, tokenFile, nkey, tlsCert, tlsKey, cache string
		workers, threads, maxDeliver                           int
		ackWait                                                time.Duration
		verbose                                                bool
	)
	return &command{name: "serve", doc: "run an embedded NATS JetStream server for hcc worker and hcc submit (and N local workers)",
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			fs.StringVar(&listen, "listen", cluster.DefaultListen, "listen on `HOST:PORT` (beyond loopback only with --token-file or --nkey)")
			fs.StringVar(&store, "store", "", "keep jobs, results and keys in `DIR` (survives a restart; default: memory)")
			fs.IntVar(&workers, "workers", 0, "run `N` workers in this process")
			fs.IntVar(&threads, "threads", 1, "threads per local worker")
			fs.StringVar(&cache, "cache", defaultCacheDir(), "local workers cache keys and programs in `DIR`")
			fs.StringVar(&tokenFile, "token-file", "", "require the token in `FILE` (or env HCC_NATS_TOKEN)")
			fs.StringVar(&nkey, "nkey", "", "require clients to sign with the NKey whose public key (U...) is `KEY`")
			fs.StringVar(&tlsCert, "tls-cert", "", "serve TLS with the certificate in `FILE` (PEM)")
			fs.StringVar(&tlsKey, "tls-key", "", "the TLS certificate's private key `FILE` (PEM)")
			fs.DurationVar(&ackWait, "ack-wait", 30*time.Second, "redeliver a task whose worker went silent this long")
			fs.IntVar(&maxDeliver, "max-deliver", 5, "fail a job when one task was delivered `N` times without finishing")
			fs.BoolVar(&verbose, "v", false, "log the server and every task of the local workers")
		},
		run: func(e *cmdEnv) error {
			tok, err := token(tokenFile)
			if err != nil {
				return err
			}
			cfg := cluster.ServerConfig{Listen: listen, StoreDir: store, Token: tok, TLSCert: tlsCert, TLSKey: tlsKey, Log: verbose}
			if nkey != "" {
				cfg.NKeys = []string{nkey}
			}
			s, err := cluster.StartServer(cfg)
			if err != nil {
				return err
			}
			defer s.Shutdown()
			ctx, stop := interrupted()
			defer stop()
			if err := cluster.Setup(ctx, cluster.ConnectConfig{URL: s.URL(), Token: tok, TLSCA: tlsCert, Name: "hcc-serve",
				Storage: s.Storage(), Tuning: cluster.Tuning{AckWait: ackWait, MaxDeliver: maxDeliver}}); err != nil {
				return err
			}
			where := "memory"
			if store != "" {
				where = store
			}
			fmt.Fprintf(e.stderr, "serve: JetStream on %s (store: %s), %d local workers; stop with Ctrl-C\n", s.URL(), where, workers)
			var wg sync.WaitGroup
			// The local workers share one cache, so one decoded key (not
			// one per worker: 1.34 GB RSS with two on STD128_T_CMUX).
			var first *cluster.Worker
			// Local workers trust the server's own certificate (self-signed or not).
			for i := range workers {
				c, err := cluster.Connect(ctx, cluster.ConnectConfig{URL: s.URL(), Token: tok, TLSCA: tlsCert, Name: fmt.Sprintf("hcc-serve-worker-%d", i)})
				if err != nil {
					return err
				}
				defer c.Close()
				w, err := cluster.NewWorker(c, cluster.WorkerConfig{Engine: cluster.HCC, Threads: threads, CacheDir: cache, Logf: taskLog(e, verbose), ShareWith: first})
				if err != nil {
					return err
				}
				if first == nil {
					first = w
				}
				wg.Add(1)
				go func() { defer wg.Done(); w.Run(ctx) }()
			}
			<-ctx.Done()
			wg.Wait()
			fmt.Fprintln(e.stderr, "serve: stopped")
			return nil
		}}
}

func taskLog(e *cmdEnv, verbose bool) func(string, ...any) {
	if !verbose {
		return nil
	}
	return func(format string, args ...any) { fmt.Fprintf(e.stderr, "worker: "+format+"\n", args...) }
}

func workerCommand() *command {
	var (
		cf      clusterFlags
		threads int
		cache   string
	)
	return &command{name: "worker", doc: "evaluate tasks from an hcc serve (or any NATS JetStream) server until stopped",
		flags: func(fs *flag.FlagSet, e *cmdEnv) {
			cf.declare(fs)
			fs.BoolVar(&cf.verbose, "v", false, "log every task")
			fs.IntVar(&threads, "threads", 1, "threads per task")
			fs.StringVar(&cache, "cache", defaultCacheDir(), "cache evaluation keys and programs in `DIR` (\"\" = memory only)")
		},
		run: func(e *cmdEnv) error {
			if threads < 1 {
				return errors.New("--threads must be at least 1")
			}
			ctx, stop := interrupted()
			defer stop()
			c, err := cf.connect(ctx, "hcc-worker")
			if err != nil {
				return err
			}
			defer c.Close()
			w, err := cluster.NewWorker(c, cluster.WorkerConfig{Engine: cluster.HCC, Threads: threads, CacheDir: cache, Logf: taskLog(e, cf.verbose)})
			if err != nil {
				return err
			}
			t := c.Tuning()
			fmt.Fprintf(e.stderr, "worker: connected to %s, %d threads per task (ack wait %v, max %d deliveries); stop with Ctrl-C\n",
				cf.server, threads, t.AckWait, t.MaxDeliver)
			w.Run(ctx)
			st := w.Stats()
			fmt.Fprintf(e.stderr, "worker: stopped after %d tasks (%d failed, %d duplicates ignored); fetched %.1f MB of keys and programs in %v\n",
				st.Tasks, st.Failed, st.Duplicates, float64(st.KeyBytes)/1e6, st.KeyFetch.Round(time.Millisecond))
			return nil
		}}
}
