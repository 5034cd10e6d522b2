package definition

// RuleKeyOrder is the order the YAML writes a rule's keys in ("rule",
// "then", "action"), for the test that holds it to the schema.
func RuleKeyOrder(what string) []string { return ruleKeyOrder[what] }
