package main

import (
	"context"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/kmeta-go/kmeta/epoch/proxy"
	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/publisher"
)

// runUpstream is the -upstream mode: a bootstrap port on listen (requests
// to any broker), one port per upstream broker id, and the view refreshed by
// the forwarder. It serves until SIGINT or SIGTERM (then returns nil, after
// logging what it did) or until a listener fails for good (its error).
func runUpstream(listen string, cfg *upstreamConfig, lim proxy.Limits, tlsf *tlsFlags, azf *authzFlags, saslf *saslFlags, mx *metrics, ready chan<- net.Addr) error {
	a, err := azf.authorizer()
	if err != nil {
		return err
	}
	imgFn := func() *image.Image { return nil }
	if azf.metadataDir != "" {
		acls, cache, stop, err := followForAuthz(azf, mx)
		if err != nil {
			return err
		}
		defer stop()
		imgFn = cache.Load
		if !azf.passThrough {
			a = acls.Authorizer()
		}
	}
	saslCfg, err := saslf.config(imgFn)
	if err != nil {
		return err
	}
	upSASL, err := saslf.upstream()
	if err != nil {
		return err
	}
	tlsCfg, mapper, err := tlsf.listener()
	if err != nil {
		return err
	}
	upTLS, err := tlsf.upstreamConfig()
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	f := proxy.NewForwarder(proxy.ForwarderConfig{
		Seeds: splitSeeds(cfg.seeds), Host: host, BrokerBase: cfg.brokerBase,
		Timeout: cfg.timeout, Shaper: cfg.shaper(), Limits: lim,
		TLS: tlsCfg, PrincipalMapper: mapper, UpstreamTLS: upTLS,
		Authorizer: a, PassThrough: azf.passThrough,
		SASL: saslCfg, UpstreamSASL: upSASL, Observer: mx.observer(),
	})
	defer f.Close()
	if mx.on() {
		registerForwarderStats(mx.reg, f)
	}
	var ver *proxy.Verifier
	if cfg.verify {
		ver = proxy.NewVerifier(f, ln.Addr().String(), cfg.hosts)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := f.Start(ctx); err != nil {
		return err
	}
	v := f.View()
	cid, _ := v.ClusterID()
	log.Printf("proxy: forwarding to %s: %d brokers, %d topics, cluster %q, on %s", cfg.seeds, len(v.Brokers()), v.NumTopics(), cid, ln.Addr())
	if ready != nil {
		ready <- ln.Addr()
	}
	err = f.Serve(ctx, ln)
	f.LogStats("stopped: ")
	if ver != nil {
		ver.Summary()
	}
	return err
}

// followForAuthz follows -metadata.dir for its ACLs (Kafka's AclPublisher
// keeping a StandardAuthorizer in step) and credentials (the latest image,
// for SCRAM logins): the first image loaded (or waited for) before it
// returns. Its loader's Stats are exported with -metrics.addr.
func followForAuthz(azf *authzFlags, mx *metrics) (*publisher.ACLPublisher, *publisher.Cache, func(), error) {
	acls := publisher.NewACLPublisher("proxy-acls", azf.config())
	cache := publisher.NewCache("proxy-image")
	loader := publisher.NewLoader(publisher.Config{})
	mx.loader(loader)
	if err := loader.Install(acls, cache); err != nil {
		loader.Close()
		return nil, nil, nil, err
	}
	stop, err := loadSource(loader, azf.metadataDir, false, true)
	if err != nil {
		stop()
		loader.Close()
		return nil, nil, nil, err
	}
	return acls, cache, func() { stop(); loader.Close() }, nil
}
