// External demo plugin `broken`: throws while loading, on purpose; the registry must report it by name and skip it.
throw new Error('this fixture plugin fails at load on purpose (it checks that a broken plugin is reported and skipped)');
