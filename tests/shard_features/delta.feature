Feature: Delta
  Scenario: six
    Given a step that passes

  @fails
  Scenario: broken on purpose
    Given a step that passes
    Then a step that fails
