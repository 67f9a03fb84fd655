package rules

// evolution is the pack of rules about changing a field's meaning or removing
// it while clients still depend on it.
func evolution() []*Rule {
	return []*Rule{
		fieldRedefined(), fieldExampleRescaled(),
		fieldRemovedWhileRead(),
		fieldRemovedUnread(),
		fieldRemovedWithoutDeprecation(),
		operationRemovedWhileCalled(),
		operationRemovedUnread(),
		requestFieldRemovedWhileSent(),
		responseFieldRemovedWhileSent(),
	}
}
