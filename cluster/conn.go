package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The JetStream names hcc uses; several jobs and any number of workers share them.
const (
	// TasksStream is the work-queue stream of tasks, subject TaskSubjectPrefix+JOB.
	TasksStream = "HCC_TASKS"
	// TaskSubjectPrefix starts every task subject.
	TaskSubjectPrefix = "hcc.tasks."
	// WorkersConsumer is the durable pull consumer all workers share.
	WorkersConsumer = "hcc-workers"
	// ResultsBucket is the key-value bucket of task results, key JOB.TASK.
	ResultsBucket = "hcc-results"
	// JobsBucket is the key-value bucket of job records, key JOB.
	JobsBucket = "hcc-jobs"
	// ObjectsBucket holds evaluation keys, programs and ciphertext parts.
	ObjectsBucket = "hcc-objects"
)

// Storage says where JetStream keeps the streams hcc creates.
type Storage int

const (
	// FileStorage survives a server restart.
	FileStorage Storage = iota
	// MemoryStorage is lost when the server stops.
	MemoryStorage
)

// Tuning sets the delivery policy of the workers' consumer. It takes
// effect when the consumer is created (Setup with update, as hcc serve does)
// and is shared by every worker.
type Tuning struct {
	// AckWait is how long a task may go without an ack or an in-progress
	// signal before it is redelivered to another worker (0 = 60 s). Workers
	// signal progress every AckWait/4, so a long task is not redelivered
	// while its worker lives.
	AckWait time.Duration
	// MaxDeliver is how often a task is delivered before it fails the job (0 = 5).
	MaxDeliver int
}

func (t Tuning) withDefaults() Tuning {
	if t.AckWait <= 0 {
		t.AckWait = 30 * time.Second
	}
	if t.MaxDeliver <= 0 {
		t.MaxDeliver = 5
	}
	return t
}

// ConnectConfig says how to reach a NATS server.
type ConnectConfig struct {
	// URL of the server, e.g. nats://127.0.0.1:4222 (comma-separated for a cluster).
	URL string
	// Token authenticates with a shared secret.
	Token string
	// NKeySeedFile authenticates with the NKey seed in this file.
	NKeySeedFile string
	// TLSCA is a PEM file of the CA that signed the server's certificate
	// (implies TLS); "" uses the system roots when the URL is tls://.
	TLSCA string
	// Name identifies this client in the server's monitoring.
	Name string
	// Storage is used for the streams and buckets if this client creates them.
	Storage Storage
	// Tuning is used for the workers' consumer if this client creates it.
	Tuning Tuning
	// Replicas for the streams this client creates (0 = 1; 3 on a NATS cluster).
	Replicas int
}

// Client is a connection to a NATS server with hcc's streams and buckets bound.
type Client struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	tasks   jetstream.Stream
	results jetstream.KeyValue
	jobs    jetstream.KeyValue
	objects jetstream.ObjectStore
	tuning  Tuning // the consumer's actual policy
}

// Connect connects to a NATS server, reconnecting for as long as the client
// lives (a restarted server is picked up again), and creates hcc's streams
// and buckets if they do not exist.
func Connect(ctx context.Context, cfg ConnectConfig) (*Client, error) {
	return connect(ctx, cfg, false)
}

func connect(ctx context.Context, cfg ConnectConfig, update bool) (*Client, error) {
	if cfg.URL == "" {
		return nil, errors.New("no server URL (e.g. nats://127.0.0.1:4222)")
	}
	name := cfg.Name
	if name == "" {
		name = "hcc"
	}
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second),
		// Publishes made while disconnected wait in a buffer; fail them
		// instead, callers retry with their own context.
		nats.ReconnectBufSize(-1),
	}
	if cfg.Token != "" {
		opts = append(opts, nats.Token(cfg.Token))
	}
	if cfg.NKeySeedFile != "" {
		o, err := nats.NkeyOptionFromSeed(cfg.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("NKey seed: %v", err)
		}
		opts = append(opts, o)
	}
	if cfg.TLSCA != "" {
		opts = append(opts, nats.RootCAs(cfg.TLSCA))
	}
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %v", cfg.URL, err)
	}
	c, err := bind(ctx, nc, cfg, update)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// Setup creates or updates hcc's streams, buckets and the workers' consumer
// with cfg's Storage and Tuning; hcc serve calls it once at start.
func Setup(ctx context.Context, cfg ConnectConfig) error {
	c, err := connect(ctx, cfg, true)
	if err != nil {
		return err
	}
	c.Close()
	return nil
}

// bind creates (or, with update, reconfigures) and binds the streams,
// buckets and consumer.
func bind(ctx context.Context, nc *nats.Conn, cfg ConnectConfig, update bool) (*Client, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	st := jetstream.FileStorage
	if cfg.Storage == MemoryStorage {
		st = jetstream.MemoryStorage
	}
	replicas := max(cfg.Replicas, 1)
	c := &Client{nc: nc, js: js}
	wrap := func(what string, err error) error {
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return fmt.Errorf("%s: the NATS server has no JetStream (start it with -js, or use hcc serve)", what)
		}
		return fmt.Errorf("%s: %v", what, err)
	}
	scfg := jetstream.StreamConfig{
		Name:      TasksStream,
		Subjects:  []string{TaskSubjectPrefix + ">"},
		Retention: jetstream.WorkQueuePolicy,
		Storage:   st,
		Replicas:  replicas,
		// A resubmitted task (same job and index) within this window is
		// dropped by the server: publishing is idempotent.
		Duplicates: 10 * time.Minute,
	}
	if update {
		c.tasks, err = js.CreateOrUpdateStream(ctx, scfg)
	} else if c.tasks, err = js.Stream(ctx, TasksStream); errors.Is(err, jetstream.ErrStreamNotFound) {
		c.tasks, err = js.CreateStream(ctx, scfg)
	}
	if err != nil {
		return nil, wrap("tasks stream", err)
	}
	kv := func(name, desc string) (jetstream.KeyValue, error) {
		kcfg := jetstream.KeyValueConfig{Bucket: name, Description: desc, Storage: st, Replicas: replicas, History: 1}
		b, err := js.KeyValue(ctx, name)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			b, err = js.CreateKeyValue(ctx, kcfg)
		}
		if err != nil {
			return nil, wrap(name+" bucket", err)
		}
		return b, nil
	}
	if c.results, err = kv(ResultsBucket, "hcc task results, key JOB.TASK, written once"); err != nil {
		return nil, err
	}
	if c.jobs, err = kv(JobsBucket, "hcc job records"); err != nil {
		return nil, err
	}
	c.objects, err = js.ObjectStore(ctx, ObjectsBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		c.objects, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket: ObjectsBucket, Description: "hcc evaluation keys, programs, ciphertext parts", Storage: st, Replicas: replicas})
	}
	if err != nil {
		return nil, wrap("object store", err)
	}
	t := cfg.Tuning.withDefaults()
	ccfg := jetstream.ConsumerConfig{
		Durable:       WorkersConsumer,
		Description:   "hcc workers: one task at a time each",
		FilterSubject: TaskSubjectPrefix + ">",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       t.AckWait,
		MaxDeliver:    t.MaxDeliver,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		// A worker that disappears leaves its pull requests behind; this many
		// may wait at once.
		MaxWaiting: 4096,
		Replicas:   replicas,
	}
	var cons jetstream.Consumer
	if update {
		cons, err = c.tasks.CreateOrUpdateConsumer(ctx, ccfg)
	} else if cons, err = c.tasks.Consumer(ctx, WorkersConsumer); errors.Is(err, jetstream.ErrConsumerNotFound) {
		cons, err = c.tasks.CreateConsumer(ctx, ccfg)
	}
	if err != nil {
		return nil, wrap("workers consumer", err)
	}
	info := cons.CachedInfo()
	c.tuning = Tuning{AckWait: info.Config.AckWait, MaxDeliver: info.Config.MaxDeliver}
	return c, nil
}

// Close closes the connection.
func (c *Client) Close() { c.nc.Close() }

// Tuning returns the delivery policy in force on the server.
func (c *Client) Tuning() Tuning { return c.tuning }

// keyObject, programObject, ... name the objects in ObjectsBucket.
func keyObject(id string) string           { return "key/" + id }
func programObject(id string) string       { return "program/" + id }
func inputObject(job string, i int) string { return fmt.Sprintf("in/%s/%d", job, i) }
func outputObject(job string, i int, worker string) string {
	return fmt.Sprintf("out/%s/%d/%s", job, i, worker)
}

func resultKey(job string, i int) string { return fmt.Sprintf("%s.%d", job, i) }

// validID accepts the ids that go into subjects, keys and object names.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	return !strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	})
}

// Activity reports the workers' consumer: idle pull requests waiting for a
// task (roughly the idle workers), tasks delivered and not yet acknowledged
// (in progress), and tasks queued.
func (c *Client) Activity(ctx context.Context) (idle, inProgress int, queued uint64, err error) {
	cons, err := c.tasks.Consumer(ctx, WorkersConsumer)
	if err != nil {
		return 0, 0, 0, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	return info.NumWaiting, info.NumAckPending, info.NumPending, nil
}
