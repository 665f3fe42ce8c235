package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// digest is the object store's form of a SHA-256 (SHA-256=base64url).
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "SHA-256=" + base64.URLEncoding.EncodeToString(sum[:])
}

// putObject stores data under name unless an object with the same content
// is already there (keys and programs are shipped once).
func (c *Client) putObject(ctx context.Context, name string, data []byte) (uploaded bool, err error) {
	d := digest(data)
	if info, err := c.objects.GetInfo(ctx, name); err == nil && info.Digest == d && !info.Deleted {
		return false, nil
	}
	if _, err := c.objects.PutBytes(ctx, name, data); err != nil {
		return false, storeError("store "+name, len(data), err)
	}
	return true, nil
}

// storeError is a failed object store write, with what to do when the
// server refused it for room or message size: the reason is the server's
// configuration, which the submitter cannot change, and inputs with
// client-side input RGSWs (hcc encrypt --input-rgsw, about 7x larger)
// reach such limits first.
func storeError(what string, size int, err error) error {
	switch {
	case noRoom(err):
		return fmt.Errorf("%s (%.1f MB): %w: the NATS server's JetStream storage is full "+
			"(hcc serve keeps everything in memory unless --store DIR; another server has its max_mem_store, max_file_store and account limits): "+
			"give it more room, delete finished jobs (hcc submit does unless --keep), or submit fewer instances at once "+
			"(ciphertexts with input RGSWs, hcc encrypt --input-rgsw, are about 7x larger)", what, float64(size)/1e6, err)
	case errors.Is(err, nats.ErrMaxPayload):
		return fmt.Errorf("%s: %w: the NATS server's max_payload is below the object store's 128 KiB chunks: raise it (hcc serve uses 1 MiB)", what, err)
	}
	return fmt.Errorf("%s: %v", what, err)
}

// noRoom reports whether a write failed because the server's JetStream
// storage is full.
func noRoom(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jsErrInsufficientResources || api.ErrorCode == jsErrStorageExceeded)
}

// The JetStream error codes of a server out of room (nats-server's
// JSInsufficientResourcesErr and JSStorageResourcesExceededErr).
const (
	jsErrInsufficientResources jetstream.ErrorCode = 10023
	jsErrStorageExceeded       jetstream.ErrorCode = 10047
)

// getObject fetches an object; the object store checks its SHA-256 digest
// while reading, and want (if set) must match it too.
func (c *Client) getObject(ctx context.Context, name, want string) ([]byte, error) {
	data, err := c.objects.GetBytes(ctx, name)
	if err != nil {
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			// The job was deleted, or the submitter never stored it.
			return nil, Permanent(fmt.Errorf("object %s is not in the object store", name))
		}
		return nil, fmt.Errorf("fetch %s: %v", name, err)
	}
	if want != "" && digest(data) != want {
		return nil, Permanent(fmt.Errorf("object %s: SHA-256 differs from the task's", name))
	}
	return data, nil
}

// cache keeps parsed evaluation keys and programs in memory and their bytes
// on disk, so a worker fetches each once, even across restarts.
type cache struct {
	dir    string // "" = memory only
	engine Engine

	mu    sync.Mutex
	keys  map[string]EvalKey
	progs map[string]Program
}

func newCache(dir string, e Engine) (*cache, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("cache: %v", err)
		}
	}
	return &cache{dir: dir, engine: e, keys: map[string]EvalKey{}, progs: map[string]Program{}}, nil
}

// fetchStats counts what a worker moved over the network.
type fetchStats struct {
	fetched bool  // the object came from the server, not a cache
	bytes   int64 // its size
}

// key returns the evaluation key with this id.
func (ca *cache) key(ctx context.Context, c *Client, id string) (EvalKey, fetchStats, error) {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if k, ok := ca.keys[id]; ok {
		return k, fetchStats{}, nil
	}
	var k EvalKey
	st, err := ca.load(ctx, c, keyObject(id), "key-"+id, func(data []byte) (string, error) {
		var err error
		k, err = ca.engine.ParseKey(data)
		if err != nil {
			return "", err
		}
		return k.ID(), nil
	}, id)
	if err != nil {
		return nil, st, err
	}
	ca.keys[id] = k
	return k, st, nil
}

// program returns the program with this id.
func (ca *cache) program(ctx context.Context, c *Client, id string) (Program, fetchStats, error) {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if p, ok := ca.progs[id]; ok {
		return p, fetchStats{}, nil
	}
	var p Program
	st, err := ca.load(ctx, c, programObject(id), "program-"+id, func(data []byte) (string, error) {
		var err error
		p, err = ca.engine.ParseProgram(data)
		if err != nil {
			return "", err
		}
		return p.ID(), nil
	}, id)
	if err != nil {
		return nil, st, err
	}
	ca.progs[id] = p
	return p, st, nil
}

// load reads an object from the disk cache or the server, parses it (which
// verifies the file format's checksum) and checks that its content hash is
// the id it was asked for.
func (ca *cache) load(ctx context.Context, c *Client, object, file string, parse func([]byte) (string, error), id string) (fetchStats, error) {
	if ca.dir != "" {
		path := filepath.Join(ca.dir, file)
		if data, err := os.ReadFile(path); err == nil {
			if got, err := parse(data); err == nil && got == id {
				return fetchStats{}, nil
			}
			os.Remove(path) // damaged or stale: fetch again
		}
	}
	data, err := c.getObject(ctx, object, "")
	if err != nil {
		return fetchStats{}, err
	}
	st := fetchStats{fetched: true, bytes: int64(len(data))}
	got, err := parse(data)
	if err != nil {
		return st, Permanent(fmt.Errorf("%s: %v", object, err))
	}
	if got != id {
		return st, Permanent(fmt.Errorf("%s: content hash is %s", object, got))
	}
	if ca.dir != "" {
		writeAtomic(filepath.Join(ca.dir, file), data)
	}
	return st, nil
}

// writeAtomic writes data via a temporary file and a rename, so a crash
// never leaves a half-written cache entry; failures only cost a refetch.
func writeAtomic(path string, data []byte) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
