package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/scouts-hq/scouts/app/alarms"
	"github.com/scouts-hq/scouts/app/defsync"
	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/definition"
)

// defsKeyPrefix begins the dedupe key of a broken definitions file's
// alarm; the file's name follows.
const defsKeyPrefix = alarms.KindDefinitions + ":"

// defsPublish is what the definitions service announces: on the bus, and
// after each reading of the folder one alarm per file that does not read
// or apply, the alarms of the files that now do (or are gone) resolved.
//
// A new version of a scout's definition may raise its pending cap: its
// held cards are let in at once, as far as the new cap allows.
func (c *Core) defsPublish(ev scouts.Event) {
	c.Bus.Publish(ev)
	if ev.Type == defsync.EventVersion {
		if d, ok := ev.Data.(map[string]any); ok {
			if id, ok := d["scout_id"].(string); ok {
				c.letIn(context.Background(), id)
			}
		}
		return
	}
	if ev.Type != defsync.EventReconciled {
		return
	}
	d, _ := ev.Data.(map[string]any)
	problems, _ := d["definition_errors"].([]definition.Error)
	c.checkDefinitionAlarms(context.Background(), problems)
}

func (c *Core) checkDefinitionAlarms(ctx context.Context, problems []definition.Error) {
	broken := map[string]bool{}
	for _, p := range problems {
		broken[defsKeyPrefix+p.File] = true
		_, err := c.alarms.Raise(ctx, alarms.Alarm{Key: defsKeyPrefix + p.File, Kind: alarms.KindDefinitions, Severity: alarms.Warning,
			Message: fmt.Sprintf("The definitions file %s is not applied (%s). Fix the file: its scout keeps its last good definition until then.",
				p.File, p.Error())})
		if err != nil {
			c.log.Warn("definitions alarm", "file", p.File, "err", err)
		}
	}
	live, err := c.alarms.List(ctx, false)
	if err != nil {
		c.log.Warn("definitions alarms", "err", err)
		return
	}
	for _, a := range live {
		if a.Kind == alarms.KindDefinitions && !broken[a.Key] {
			file := strings.TrimPrefix(a.Key, defsKeyPrefix)
			if err := c.alarms.Resolve(ctx, a.Key, "the definitions file "+file+" reads and applies again (or is gone)"); err != nil {
				c.log.Warn("definitions alarm", "file", file, "err", err)
			}
		}
	}
}
