package proxy

import (
	"errors"
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
