package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image/credential"
)

// UpstreamSASL is the proxy's own SASL identity to the cluster, separate
// from its clients': every connection the proxy opens upstream
// authenticates with it (SaslHandshake v1, SaslAuthenticate v1) before
// anything is sent.
type UpstreamSASL struct {
	Mechanism string // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
	User      string
	Password  string
	// TokenAuth: User and Password are a delegation token's id and HMAC
	// (SCRAM with tokenauth=true).
	TokenAuth bool
}

// saslDialer wraps dial with the proxy's login upstream.
func saslDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error), s UpstreamSASL, timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c.SetDeadline(time.Now().Add(timeout))
		if err := upstreamLogin(c, s); err != nil {
			c.Close()
			return nil, fmt.Errorf("SASL %s to %s: %w", s.Mechanism, addr, err)
		}
		c.SetDeadline(time.Time{})
		return c, nil
	}
}

// upstreamLogin runs one SASL exchange on c.
func upstreamLogin(c net.Conn, s UpstreamSASL) error {
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version, hs.Mechanism = 1, s.Mechanism
	var hr kmsg.SASLHandshakeResponse
	hr.Version = 1
	if err := exchange(c, hs, &hr, -2); err != nil {
		return err
	}
	if hr.ErrorCode != 0 {
		return fmt.Errorf("SaslHandshake: error %d (mechanisms %v)", hr.ErrorCode, hr.SupportedMechanisms)
	}
	step := func(msg []byte, corr int32) ([]byte, error) {
		req := kmsg.NewPtrSASLAuthenticateRequest()
		req.Version, req.SASLAuthBytes = 1, msg
		var resp kmsg.SASLAuthenticateResponse
		resp.Version = 1
		if err := exchange(c, req, &resp, corr); err != nil {
			return nil, err
		}
		if resp.ErrorCode != 0 {
			m := ""
			if resp.ErrorMessage != nil {
				m = *resp.ErrorMessage
			}
			return nil, fmt.Errorf("SaslAuthenticate: error %d: %s", resp.ErrorCode, m)
		}
		return resp.SASLAuthBytes, nil
	}
	if s.Mechanism == "PLAIN" {
		_, err := step([]byte("\x00"+s.User+"\x00"+s.Password), -3)
		return err
	}
	m, ok := credential.MechanismByName(s.Mechanism)
	if !ok {
		return errors.New("unknown mechanism")
	}
	cl, err := credential.NewScramClient(m, s.User, s.Password, s.TokenAuth, nil)
	if err != nil {
		return err
	}
	first, err := step(cl.First(), -3)
	if err != nil {
		return err
	}
	final, err := cl.Final(first)
	if err != nil {
		return err
	}
	last, err := step(final, -4)
	if err != nil {
		return err
	}
	return cl.Verify(last)
}

// exchange writes req with correlation id corr and reads its answer into
// resp.
func exchange(c net.Conn, req kmsg.Request, resp kmsg.Response, corr int32) error {
	if _, err := c.Write(appendRequest(nil, req, corr, "kmeta-proxy")); err != nil {
		return err
	}
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return err
	}
	n := int(int32(binary.BigEndian.Uint32(size[:])))
	if n < 4 || n > 1<<20 {
		return fmt.Errorf("answer size %d", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c, b); err != nil {
		return err
	}
	if int32(binary.BigEndian.Uint32(b)) != corr {
		return errors.New("wrong correlation id")
	}
	body, err := responseBody(req.Key(), req.GetVersion(), b)
	if err != nil {
		return err
	}
	return resp.ReadFrom(body)
}
