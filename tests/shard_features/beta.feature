Feature: Beta
  Scenario: three
    Given a step that passes

  @wip
  Scenario: work in progress
    Given a step that passes
