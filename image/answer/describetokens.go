package answer

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kmeta-go/kmeta/image"
	"github.com/kmeta-go/kmeta/image/authz"
	"github.com/kmeta-go/kmeta/image/credential"
	"github.com/kmeta-go/kmeta/image/kafkaerr"
)

// TokenRequest is what DescribeDelegationToken needs beyond a Request: the
// broker's delegation.token.secret.key and how the client's connection was
// authenticated.
type TokenRequest struct {
	// SecretKey is delegation.token.secret.key; empty (after Java's trim)
	// means delegation tokens are disabled.
	SecretKey string
	// SecurityProtocol is the listener's security protocol: "PLAINTEXT",
	// "SSL", "SASL_PLAINTEXT" or "SASL_SSL".
	SecurityProtocol string
	// TokenAuthenticated says the client authenticated with a delegation
	// token (KafkaPrincipal.tokenAuthenticated).
	TokenAuthenticated bool
}

// DescribeDelegationToken answers a DescribeDelegationToken request (v1-v3)
// as Kafka's KafkaApis.handleDescribeTokensRequest does with
// DelegationTokenManager.getTokens and filterToken:
// DELEGATION_TOKEN_REQUEST_NOT_ALLOWED to a client that authenticated with
// a token, on PLAINTEXT, or anonymously on SSL (allowTokenRequests);
// DELEGATION_TOKEN_AUTH_DISABLED without a secret key; nothing for an empty
// owner list; otherwise every token of the image, expired ones included,
// that is owned, requested or renewable by one of the owners asked for
// (all, for a null list) and that the requester owns, requested or may
// renew, or may DESCRIBE (resource DELEGATION_TOKEN, the token id), or
// whose owner it may DESCRIBE_TOKENS (resource USER, the owner as
// "User:name"), each with its HMAC (credential.TokenHMAC) and, from v3,
// its requester. The requester is rq.Principal ("User:alice"); an
// authorizer of nil allows everything, as Kafka does without one.
//
// Kafka lists the tokens in the order of a ConcurrentHashMap, which
// follows its cache's history; kmeta lists them by token id.
func (r *Responder) DescribeDelegationToken(img *image.Image, req *kmsg.DescribeDelegationTokenRequest, rq Request, tr TokenRequest) *kmsg.DescribeDelegationTokenResponse {
	resp := kmsg.NewPtrDescribeDelegationTokenResponse()
	resp.Version = req.Version
	switch {
	case tr.TokenAuthenticated || tr.SecurityProtocol == "PLAINTEXT" ||
		tr.SecurityProtocol == "SSL" && rq.Principal == "User:ANONYMOUS":
		resp.ErrorCode = int16(kafkaerr.DelegationTokenRequestNotAllowed)
		return resp
	case !tokensEnabled(tr.SecretKey):
		resp.ErrorCode = int16(kafkaerr.DelegationTokenAuthDisabled)
		return resp
	case req.Owners != nil && len(req.Owners) == 0:
		return resp
	}
	ctx := authz.Context{Principal: rq.Principal, Host: rq.Host}
	for tok := range img.Tokens().All() {
		hmac, err := credential.TokenHMAC(tr.SecretKey, tok.TokenID)
		if err != nil || !tokenEligible(r.cfg.Authorizer, ctx, req.Owners, &tok) {
			continue
		}
		resp.TokenDetails = append(resp.TokenDetails, tokenDetail(&tok, hmac, req.Version))
	}
	return resp
}

func tokensEnabled(key string) bool {
	_, err := credential.TokenHMAC(key, "")
	return err == nil
}

// tokenEligible is DelegationTokenManager.filterToken.
func tokenEligible(a authz.Authorizer, ctx authz.Context, owners []kmsg.DescribeDelegationTokenRequestOwner, t *image.Token) bool {
	if owners != nil {
		found := false
		for _, o := range owners {
			if ownerOrRenewer(t, o.PrincipalType, o.PrincipalName) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if typ, name := splitPrincipal(ctx.Principal); ownerOrRenewer(t, typ, name) {
		return true
	}
	if a == nil {
		return true
	}
	return a.Authorize(ctx, authz.OpDescribe, authz.ResourceDelegationToken, t.TokenID) ||
		a.Authorize(ctx, authz.OpDescribeTokens, authz.ResourceUser, t.Owner)
}

// ownerOrRenewer is TokenInformation.ownerOrRenewer: principal (typ, name)
// is the owner, the requester or a renewer (KafkaPrincipal equality: type
// and name; the token's principals are parsed at their first colon).
func ownerOrRenewer(t *image.Token, typ, name string) bool {
	is := func(p string) bool {
		pt, pn := splitPrincipal(p)
		return pt == typ && pn == name
	}
	return is(t.Owner) || is(t.Requester) || slices.ContainsFunc(t.Renewers, is)
}

// tokenDetail is one token of DescribeDelegationTokenResponse's constructor.
func tokenDetail(t *image.Token, hmac []byte, version int16) kmsg.DescribeDelegationTokenResponseTokenDetail {
	d := kmsg.NewDescribeDelegationTokenResponseTokenDetail()
	d.PrincipalType, d.PrincipalName = splitPrincipal(t.Owner)
	if version > 2 {
		d.TokenRequesterPrincipalType, d.TokenRequesterPrincipalName = splitPrincipal(t.Requester)
	}
	d.IssueTimestamp, d.ExpiryTimestamp, d.MaxTimestamp = t.IssueTimestamp, t.ExpirationTimestamp, t.MaxTimestamp
	d.TokenID, d.HMAC = t.TokenID, hmac
	d.Renewers = make([]kmsg.DescribeDelegationTokenResponseTokenDetailRenewer, 0, len(t.Renewers))
	for _, r := range t.Renewers {
		rn := kmsg.NewDescribeDelegationTokenResponseTokenDetailRenewer()
		rn.PrincipalType, rn.PrincipalName = splitPrincipal(r)
		d.Renewers = append(d.Renewers, rn)
	}
	return d
}

// splitPrincipal is SecurityUtils.parseKafkaPrincipal's split at the first
// colon.
func splitPrincipal(p string) (string, string) {
	typ, name, _ := strings.Cut(p, ":")
	return typ, name
}
