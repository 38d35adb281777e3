package chain

import "crypto/ed25519"

// HMACSecret returns a copy of an HMAC key's secret, or nil. It exists so
// that one key file format serves ticket root keys and receipt keys
// (tickettool keygen); never print what it returns.
func (k *Key) HMACSecret() []byte {
	if k == nil || k.secretKey() == nil {
		return nil
	}
	return append([]byte(nil), k.secretKey()...)
}

// Ed25519PrivateKey returns a copy of an Ed25519 signing key's private
// key, or nil for a public or HMAC key. Never print what it returns.
func (k *Key) Ed25519PrivateKey() ed25519.PrivateKey {
	if k == nil || k.privKey() == nil {
		return nil
	}
	return append(ed25519.PrivateKey(nil), k.privKey()...)
}
