package cluster_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hcc-fhe/hcc"
	"github.com/hcc-fhe/hcc/cluster"
)

// Example runs an encrypted FHEW batch on a cluster: an embedded server, one
// worker (on another host it would be "hcc worker --server URL") and a
// submitter that holds the secret key and sends only the evaluation key.
// The Toy parameter set keeps the example fast; it is insecure.
func Example() {
	ctx := context.Background()
	srv, err := cluster.StartServer(cluster.ServerConfig{Listen: "127.0.0.1:0"})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Shutdown()
	if err := cluster.Setup(ctx, cluster.ConnectConfig{URL: srv.URL(), Storage: srv.Storage()}); err != nil {
		log.Fatal(err)
	}

	wc, err := cluster.Connect(ctx, cluster.ConnectConfig{URL: srv.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer wc.Close()
	w, err := cluster.NewWorker(wc, cluster.WorkerConfig{Engine: cluster.HCC, Threads: 1})
	if err != nil {
		log.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go w.Run(wctx)

	// The client: compile, keys, encrypt three instances.
	p, err := hcc.Compile(hcc.HDL(`circuit add(a: u8, b: u8) -> (s: u8) { s = a + b; }`, ""),
		hcc.Target{Engine: "fhew", Params: "ToySigned", Insecure: true})
	if err != nil {
		log.Fatal(err)
	}
	ck, sk, err := hcc.GenerateKeys(p)
	if err != nil {
		log.Fatal(err)
	}
	var batch []hcc.Values
	for _, in := range [][2]string{{"a=1", "b=2"}, {"a=200", "b=100"}, {"a=7", "b=8"}} {
		v, err := p.ParseInputs(in[0], in[1])
		if err != nil {
			log.Fatal(err)
		}
		batch = append(batch, v)
	}
	cts, err := ck.Encrypt(p, batch...)
	if err != nil {
		log.Fatal(err)
	}
	key, _ := sk.MarshalBinary()
	prog, _ := p.MarshalBinary()
	in, _ := cts.MarshalBinary()

	c, err := cluster.Connect(ctx, cluster.ConnectConfig{URL: srv.URL()})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	out, st, err := c.Submit(ctx, key, prog, in, cluster.SubmitOptions{Engine: cluster.HCC})
	if err != nil {
		log.Fatal(err)
	}
	res, err := hcc.UnmarshalCiphertexts(out)
	if err != nil {
		log.Fatal(err)
	}
	vals, err := ck.Decrypt(p, res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Tasks, "tasks")
	for _, v := range vals {
		fmt.Println("s =", v["s"][0])
	}
	// Output:
	// 3 tasks
	// s = 3
	// s = 44
	// s = 15
}
