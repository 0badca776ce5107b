package main

import (
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/publisher"
)

// metricsFlags are -metrics.addr and -pprof: both off unless asked for.
type metricsFlags struct {
	addr  string
	pprof bool
}

func newMetricsFlags(fs *flag.FlagSet) *metricsFlags {
	m := &metricsFlags{}
	fs.StringVar(&m.addr, "metrics.addr", "", "serve Prometheus metrics on http://HOST:PORT/metrics (default: off)")
	fs.BoolVar(&m.pprof, "pprof", false, "also serve net/http/pprof's profiles on the -metrics.addr address, under /debug/pprof/")
	return m
}

// metrics is the proxy's metrics endpoint while it runs: its registry (the
// proxy's own, not Prometheus' global one) and the Observer that counts
// into it; the zero metrics (no -metrics.addr) registers nothing.
type metrics struct {
	reg *prometheus.Registry
	obs *promObserver
	srv *http.Server
}

// start serves the registry on -metrics.addr, with the Go runtime's and the
// process's collectors; ready, if non-nil, receives its address (for
// tests). Without -metrics.addr it returns a metrics that does nothing.
func (m *metricsFlags) start(ready chan<- net.Addr) (*metrics, error) {
	if m.addr == "" {
		if m.pprof {
			return nil, errors.New("-pprof is served on the -metrics.addr address: give one")
		}
		return &metrics{}, nil
	}
	ln, err := net.Listen("tcp", m.addr)
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mx := http.NewServeMux()
	mx.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: log.Default()}))
	if m.pprof {
		mx.HandleFunc("/debug/pprof/", pprof.Index)
		mx.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mx.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mx.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mx.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	srv := &http.Server{Handler: mx, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Printf("proxy: metrics: %v", err)
		}
	}()
	what := "metrics on http://" + ln.Addr().String() + "/metrics"
	if m.pprof {
		what += ", pprof on /debug/pprof/"
	}
	log.Printf("proxy: %s", what)
	if ready != nil {
		ready <- ln.Addr()
	}
	return &metrics{reg: reg, obs: newPromObserver(reg), srv: srv}, nil
}

// on reports whether metrics are served.
func (m *metrics) on() bool { return m.reg != nil }

// observer is the proxy.Observer to give the server or forwarder: nil
// (nothing observed, no cost) without -metrics.addr.
func (m *metrics) observer() proxy.Observer {
	if m.obs == nil {
		return nil
	}
	return m.obs
}

// loader exports l's Stats, with -metrics.addr.
func (m *metrics) loader(l *publisher.Loader) {
	if m.on() {
		m.reg.MustRegister(newLoaderCollector(l))
	}
}

// server observes the image mode's server and exports its Stats, with
// -metrics.addr.
func (m *metrics) server(s *proxy.Server) {
	if m.on() {
		s.SetObserver(m.obs)
		registerServerStats(m.reg, s.Stats())
	}
}

// close stops serving the metrics.
func (m *metrics) close() {
	if m.srv != nil {
		m.srv.Close()
	}
}
