module github.com/failsim/failsim

go 1.26.0

require (
	github.com/magiconair/properties v1.18.13
	github.com/rogpeppe/go-internal v1.16.0
	github.com/rs/zerolog v1.35.1
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/go-sql-driver/mysql v1.10.1 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
