Feature: Gamma with rules
  Rule: the first rule
    Scenario: four
      Given a step that passes

  Rule: the second rule
    Scenario: five
      Given a step that passes
