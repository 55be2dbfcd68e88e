Feature: Alpha
  Scenario: one
    Given a step that passes

  Scenario: two
    Given a step that passes

  Scenario Outline: row <n>
    Given a step that passes

    Examples:
      | n |
      | 1 |
      | 2 |
      | 3 |
