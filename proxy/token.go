package proxy

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"unicode"
)

// CleanToken returns a control token as the control API compares it: without surrounding
// whitespace (HTTP drops it from a header value, and a token read from a file or an
// environment variable often ends in a newline). It refuses a token with whitespace or a
// control character inside, which no caller could send as it is. An empty result means no
// token.
func CleanToken(token string) (string, error) {
	token = strings.TrimSpace(token)
	for _, r := range token {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return "", errors.New("control token: whitespace, a control character or invalid UTF-8 inside")
		}
	}
	return token, nil
}

// withToken wraps api so that every call must bear token (cleaned by CleanToken) as
// "Authorization: Bearer TOKEN"; refused answers one that does not, its connection closed. An
// empty token asks none; a token CleanToken refuses lets no call through.
func withToken(token string, api http.Handler, refused func(http.ResponseWriter)) http.Handler {
	token, err := CleanToken(token)
	if err == nil && token == "" {
		return api
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err != nil || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("Connection", "close")
			refused(w)
			return
		}
		api.ServeHTTP(w, r)
	})
}
