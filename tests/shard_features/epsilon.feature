Feature: Epsilon
  Scenario: seven
    Given a step that passes
