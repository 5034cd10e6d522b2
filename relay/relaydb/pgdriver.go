package relaydb

// The PostgreSQL driver store.OpenPostgres opens (store.PostgresDriver)
// is linked here, by the relay: the store package, which the desktop
// agent shares, leaves it out.
import _ "github.com/jackc/pgx/v5/stdlib"
